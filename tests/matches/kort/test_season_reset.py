"""The soft reset that opens a season (KORT_RULES §10), and a statistics line taken back out of
a sum (a voided match, §11). Every expected value is worked out by hand from §10."""

import pytest

from matches.kort.rules import Outcome, RoundResult, Team, match_stats, season_reset_cups

RESETS = [
    # floor T, cups before, cups after (§10: kept 0..T; T + (cups - T) // 2 above; 0 below 0)
    (0, 0, 0),
    (0, 1, 0),
    (0, 2, 1),
    (0, 27, 13),
    (0, 14, 7),
    (0, -1, 0),
    (0, -18, 0),
    (10, 0, 0),
    (10, 3, 3),
    (10, 10, 10),
    (10, 11, 10),
    (10, 12, 11),
    (10, 27, 18),
    (10, 22, 16),
    (10, -5, 0),
]


@pytest.mark.parametrize(("floor", "cups", "after"), RESETS)
def test_the_soft_reset(floor, cups, after):
    assert season_reset_cups(cups, floor) == after


@pytest.mark.parametrize("floor", [0, 1, 10, 100])
def test_the_reset_keeps_the_floor_and_never_raises_a_total_above_zero(floor):
    for cups in range(-50, 250):
        after = season_reset_cups(cups, floor)
        assert 0 <= after <= max(cups, 0)
        assert (after == cups) == (0 <= cups <= floor)
        assert after >= min(cups, floor)


def test_a_negated_line_takes_a_match_back_out():
    rounds = [
        RoundResult(Outcome.KORT, Team.A, 5, Team.A, Team.A),
        RoundResult(Outcome.BAVAN_FAILED, Team.B, 5, Team.A, Team.A),
    ]
    line = match_stats(rounds, Team.A, Team.A)
    other = match_stats(rounds, Team.A, Team.B)

    assert line + other + -line == other
    assert (-line).matches_played == -1
    assert (-line).outcomes[Outcome.BAVAN_FAILED] == (-1, 0)

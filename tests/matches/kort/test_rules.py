"""Round outcomes (KORT_RULES §2), the next trump caller (§5) and the end of a match (§1).

The expected answers come from an oracle written here from the §2 table, not from the module: the
oracle lists the few legal (winner tricks, loser tricks, decision) shapes and says what each one is
worth; every other summary must be rejected with the field the oracle names.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from matches.kort.rules import (
    BavanDecision,
    InvalidRoundError,
    Outcome,
    RoundResult,
    Team,
    match_winner,
    next_trump_seat,
    round_outcome,
)

GO = BavanDecision.GO
STOP = BavanDecision.STOP
DECISIONS = (None, GO, STOP)
SEATS = (0, 1, 2, 3)
TRICK_COUNTS = range(15)

# --- The oracle: the §2 table, written out ------------------------------------------------------

WINS_AWARDED = {"win": 1, "kort": 5, "at_kort": 7, "bavan": 10, "at_bavan": 13, "bavan_failed": 5}
"""§2 "match wins" column."""

LEGAL_SHAPES: dict[tuple[int, int, BavanDecision | None], str] = {
    **{(7, loser, None): "win" for loser in range(1, 7)},
    (7, 0, STOP): "kort",
    (13, 0, GO): "bavan",
    **{(7 + j, 1, GO): "bavan_failed" for j in range(6)},
}
"""(tricks of the team ahead, tricks of the other team, decision) -> outcome, as if the team ahead
called trump; ``kort`` and ``bavan`` become ``at_kort`` / ``at_bavan`` for the defenders."""


@dataclass(frozen=True)
class Expected:
    outcome: str
    winner: Team
    wins_awarded: int
    trump_team: Team
    shutout_team: Team | None


def team_of_seat(seat: int) -> Team:
    return Team.A if seat in (0, 2) else Team.B


def expected_result(seat: int, a: int, b: int, decision) -> Expected | None:
    """What the §2 table gives for a summary, or None when the summary is not legal."""
    ahead = Team.A if a > b else Team.B
    shape = LEGAL_SHAPES.get((max(a, b), min(a, b), decision))
    if shape is None:
        return None
    trump_team = team_of_seat(seat)
    if shape in ("kort", "bavan") and ahead is not trump_team:
        shape = f"at_{shape}"
    winner = ahead.other if shape == "bavan_failed" else ahead
    shutout_team = None if shape == "win" else ahead
    return Expected(shape, winner, WINS_AWARDED[shape], trump_team, shutout_team)


def expected_error_field(a: int, b: int, decision) -> str:
    """The field an illegal summary is blamed on.

    - ``go`` ending anywhere but 13:0 or (7+j):1 is a trick-count error: a Bavan ends there (§3).
    - A shutout score with the wrong decision blames the decision: 7:0 needs ``stop`` or ``go``
      first, 13:0 needs ``go`` (§4).
    - ``stop`` on a plain win (7:1 .. 7:6) blames the decision: a stop is taken only at 7:0 (§4).
    - Everything else (scores no round ends on, Bavan-only scores without ``go``) is a trick-count
      error.
    """
    high, low = max(a, b), min(a, b)
    if decision is GO:
        return "tricks"
    if (high, low) in ((7, 0), (13, 0)):
        return "bavan"
    if decision is STOP and high == 7 and 1 <= low <= 6:
        return "bavan"
    return "tricks"


def score_named(message: str, a: int, b: int) -> bool:
    """Whether ``message`` quotes the received score (as A:B, or as winner:loser)."""
    return f"{a}:{b}" in message or f"{b}:{a}" in message


def tricks(a, b) -> dict:
    return {Team.A: a, Team.B: b}


# --- Exhaustive §2 check over every summary -----------------------------------------------------


def stop_on_plain_win(a: int, b: int, decision) -> bool:
    """``stop`` on 7:2 .. 7:6: checked by its own test below, where rules.py disagrees."""
    return decision is STOP and max(a, b) == 7 and 2 <= min(a, b) <= 6


def summaries(legal: bool):
    for a in TRICK_COUNTS:
        for b in TRICK_COUNTS:
            for seat in SEATS:
                for decision in DECISIONS:
                    if (expected_result(seat, a, b, decision) is not None) is not legal:
                        continue
                    if stop_on_plain_win(a, b, decision):
                        continue
                    case_id = f"{a}:{b}-seat{seat}-{decision or 'none'}"
                    yield pytest.param(seat, a, b, decision, id=case_id)


@pytest.mark.parametrize(("seat", "a", "b", "decision"), list(summaries(legal=True)))
def test_legal_summary_gives_the_table_outcome(seat, a, b, decision):
    expected = expected_result(seat, a, b, decision)

    result = round_outcome(seat, tricks(a, b), decision)

    assert expected is not None
    assert result.outcome == Outcome(expected.outcome)
    assert result.winner is expected.winner
    assert result.wins_awarded == expected.wins_awarded
    assert result.trump_team is expected.trump_team
    assert result.shutout_team is expected.shutout_team


@pytest.mark.parametrize(("seat", "a", "b", "decision"), list(summaries(legal=False)))
def test_illegal_summary_is_rejected_on_the_right_field(seat, a, b, decision):
    with pytest.raises(InvalidRoundError) as caught:
        round_outcome(seat, tricks(a, b), decision)

    assert caught.value.field == expected_error_field(a, b, decision)
    assert score_named(caught.value.message, a, b), caught.value.message


@pytest.mark.parametrize(("a", "b"), [(7, 1), (1, 7)])
def test_stop_on_7_1_blames_the_decision(a, b):
    with pytest.raises(InvalidRoundError) as caught:
        round_outcome(0, tricks(a, b), STOP)

    assert caught.value.field == "bavan"
    assert "7:0" in caught.value.message


@pytest.mark.parametrize(
    ("a", "b"), [*((7, k) for k in range(2, 7)), *((k, 7) for k in range(2, 7))]
)
def test_stop_on_a_plain_win_blames_the_decision(a, b):
    # A stop is taken only at 7:0 (§4); 7:2 .. 7:6 are plain wins that need no decision at all.
    with pytest.raises(InvalidRoundError) as caught:
        round_outcome(0, tricks(a, b), STOP)

    assert caught.value.field == "bavan"
    assert score_named(caught.value.message, a, b)


def test_the_oracle_knows_every_legal_shape_in_both_directions():
    # 6 plain wins + 7:0 + 13:0 + 6 failed Bavans, for either team ahead, for each of the 4 seats.
    legal = list(summaries(legal=True))
    assert len(legal) == (6 + 1 + 1 + 6) * 2 * 4


# --- Malformed input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("seven", 0),
        (7, "0"),
        (7.0, 1),
        (7, 1.0),
        (True, 0),
        (7, False),
        (None, 7),
        (7, None),
    ],
)
def test_tricks_that_are_not_whole_numbers_are_rejected(a, b):
    with pytest.raises(InvalidRoundError) as caught:
        round_outcome(0, tricks(a, b), None)

    assert caught.value.field == "tricks"
    assert "whole number" in caught.value.message


@pytest.mark.parametrize(("a", "b"), [(-1, 7), (7, -1), (-7, 0), (13, -3)])
def test_negative_tricks_are_rejected_naming_the_count(a, b):
    with pytest.raises(InvalidRoundError) as caught:
        round_outcome(0, tricks(a, b), None)

    assert caught.value.field == "tricks"
    assert str(min(a, b)) in caught.value.message


def test_a_missing_team_is_rejected():
    with pytest.raises(InvalidRoundError) as caught:
        round_outcome(0, {Team.A: 7}, None)

    assert caught.value.field == "tricks"


@pytest.mark.parametrize("seat", [-1, 4, 7, None, "0", True, False])
def test_a_trump_seat_outside_0_to_3_is_rejected(seat):
    with pytest.raises(InvalidRoundError) as caught:
        round_outcome(seat, tricks(7, 3), None)

    assert caught.value.field == "trump_seat"
    assert repr(seat) in caught.value.message


def test_a_float_trump_seat_is_rejected():
    with pytest.raises(InvalidRoundError) as caught:
        round_outcome(1.0, tricks(7, 3), None)  # type: ignore[arg-type]  # a float on purpose

    assert caught.value.field == "trump_seat"


def test_a_bad_trump_seat_is_reported_before_bad_tricks():
    with pytest.raises(InvalidRoundError) as caught:
        round_outcome(9, tricks(8, 3), None)

    assert caught.value.field == "trump_seat"


# --- The API.md round report examples -----------------------------------------------------------


def report(trump_seat: int, wire_tricks: dict, bavan: str | None = None) -> RoundResult:
    """A round report as the API receives it: team letters and the decision as strings."""
    decision = None if bavan is None else BavanDecision(bavan)
    return round_outcome(trump_seat, wire_tricks, decision)


def test_api_example_plain_win():
    result = report(0, {"A": 7, "B": 3})

    assert (result.outcome, result.winner, result.wins_awarded) == (Outcome.WIN, Team.A, 1)


def test_api_example_kort_for_the_trump_team():
    result = report(0, {"A": 7, "B": 0}, "stop")

    assert (result.outcome, result.winner, result.wins_awarded) == (Outcome.KORT, Team.A, 5)


def test_api_example_at_kort_for_the_defenders():
    result = report(1, {"A": 7, "B": 0}, "stop")

    assert (result.outcome, result.winner, result.wins_awarded) == (Outcome.AT_KORT, Team.A, 7)


def test_api_example_bavan():
    result = report(0, {"A": 13, "B": 0}, "go")

    assert (result.outcome, result.winner, result.wins_awarded) == (Outcome.BAVAN, Team.A, 10)


def test_api_example_failed_bavan_gives_the_opponents_five():
    result = report(0, {"A": 9, "B": 1}, "go")

    assert (result.outcome, result.winner, result.wins_awarded) == (
        Outcome.BAVAN_FAILED,
        Team.B,
        5,
    )
    assert result.shutout_team is Team.A


def test_api_example_error_names_the_tricks_and_the_score():
    with pytest.raises(InvalidRoundError) as caught:
        report(0, {"A": 8, "B": 3})

    assert caught.value.field == "tricks"
    assert "a round ends when a team reaches 7 tricks" in caught.value.message
    assert "8:3" in caught.value.message


def test_invalid_round_error_is_a_value_error():
    with pytest.raises(ValueError):
        report(0, {"A": 8, "B": 3})


# --- §5 the next trump caller, written out by hand ----------------------------------------------


def finished(outcome: str, trump_seat: int, trump_won: bool) -> RoundResult:
    """A round result built by hand: who called trump, and whether the trump team won the round."""
    trump_team = team_of_seat(trump_seat)
    winner = trump_team if trump_won else trump_team.other
    shutout_team = {
        "win": None,
        "bavan_failed": winner.other,
    }.get(outcome, winner)
    return RoundResult(Outcome(outcome), winner, WINS_AWARDED[outcome], trump_team, shutout_team)


NEXT_CALLER = [
    # outcome, the trump team won?, caller -> next caller
    # kort / bavan: the caller's partner
    ("kort", True, 0, 2),
    ("kort", True, 1, 3),
    ("kort", True, 2, 0),
    ("kort", True, 3, 1),
    ("bavan", True, 0, 2),
    ("bavan", True, 1, 3),
    ("bavan", True, 2, 0),
    ("bavan", True, 3, 1),
    # the trump team won otherwise: the same caller
    ("win", True, 0, 0),
    ("win", True, 1, 1),
    ("win", True, 2, 2),
    ("win", True, 3, 3),
    ("bavan_failed", True, 0, 0),  # the defenders went for Bavan and failed
    ("bavan_failed", True, 1, 1),
    ("bavan_failed", True, 2, 2),
    ("bavan_failed", True, 3, 3),
    # the defenders won: the next seat in play order
    ("win", False, 0, 1),
    ("win", False, 1, 2),
    ("win", False, 2, 3),
    ("win", False, 3, 0),
    ("at_kort", False, 0, 1),
    ("at_kort", False, 1, 2),
    ("at_kort", False, 2, 3),
    ("at_kort", False, 3, 0),
    ("at_bavan", False, 0, 1),
    ("at_bavan", False, 1, 2),
    ("at_bavan", False, 2, 3),
    ("at_bavan", False, 3, 0),
    ("bavan_failed", False, 0, 1),  # the trump team went for Bavan and failed
    ("bavan_failed", False, 1, 2),
    ("bavan_failed", False, 2, 3),
    ("bavan_failed", False, 3, 0),
]


@pytest.mark.parametrize(("outcome", "trump_won", "seat", "next_seat"), NEXT_CALLER)
def test_next_trump_caller(outcome, trump_won, seat, next_seat):
    assert next_trump_seat(seat, finished(outcome, seat, trump_won)) == next_seat


@pytest.mark.parametrize(
    ("seat", "a", "b", "decision", "next_seat"),
    [
        (0, 7, 0, STOP, 2),  # kort by A: partner
        (3, 0, 7, STOP, 1),  # kort by B: partner
        (1, 7, 0, STOP, 2),  # at_kort by A: next seat
        (3, 13, 0, GO, 0),  # at_bavan by A: next seat (wraps)
        (2, 1, 9, GO, 2),  # A called, B went for Bavan and failed: A keeps the call
        (2, 11, 1, GO, 3),  # A called and failed its own Bavan: next seat
        (1, 4, 7, None, 1),  # B called and won: same caller
    ],
)
def test_next_trump_caller_from_reported_rounds(seat, a, b, decision, next_seat):
    assert next_trump_seat(seat, round_outcome(seat, tricks(a, b), decision)) == next_seat


# --- §1 the end of a match ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wins_a", "wins_b", "target", "winner"),
    [
        (0, 0, 3, None),
        (2, 2, 3, None),
        (3, 2, 3, Team.A),
        (2, 3, 3, Team.B),
        (5, 0, 3, Team.A),  # a Kort overshoots
        (0, 13, 3, Team.B),
        (6, 6, 7, None),
        (7, 6, 7, Team.A),
        (2, 10, 7, Team.B),
        (3, 0, 7, None),  # 3 wins end a ranked match, not a room match
    ],
)
def test_match_winner(wins_a, wins_b, target, winner):
    assert match_winner({Team.A: wins_a, Team.B: wins_b}, target) is winner


def test_match_winner_reads_missing_teams_as_zero():
    assert match_winner({Team.B: 3}, 3) is Team.B
    assert match_winner({}, 3) is None

"""Cups (KORT_RULES §7) and the "My games" statistics fold (§8).

Round results are built by hand here, so these tests do not lean on ``round_outcome``; every
expected number is worked out in the comments.
"""

from __future__ import annotations

import pytest

from matches.kort.rules import (
    SHUTOUT_OUTCOMES,
    Outcome,
    RoundResult,
    StatsLine,
    Team,
    match_cups,
    match_stats,
    round_stats,
)

A, B = Team.A, Team.B
WINS_AWARDED = {"win": 1, "kort": 5, "at_kort": 7, "bavan": 10, "at_bavan": 13, "bavan_failed": 5}
"""§2 "match wins" column."""


def played(outcome: str, ahead: Team, trump: Team | None = None) -> RoundResult:
    """A finished round. ``ahead`` is the team with the most tricks (the plain-win winner, or the
    7:0 team). ``trump`` defaults to what the outcome implies: the team ahead, except that an
    ``at_`` outcome belongs to the defenders; a plain win or a failed Bavan needs it spelled out
    when the defenders were ahead."""
    if trump is None:
        trump = ahead.other if outcome.startswith("at_") else ahead
    winner = ahead.other if outcome == "bavan_failed" else ahead
    shutout = None if outcome == "win" else ahead
    return RoundResult(Outcome(outcome), winner, WINS_AWARDED[outcome], trump, shutout)


def wins_of(results: list[RoundResult]) -> dict[Team, int]:
    wins = {A: 0, B: 0}
    for result in results:
        wins[result.winner] += WINS_AWARDED[result.outcome]
    return wins


def cups_for(results: list[RoundResult], winner: Team) -> dict[Team, int]:
    return match_cups(results, winner, wins_of(results))


# --- §7: the checks from the source pages, for either team ------------------------------------

FIRST_ROUND_SHUTOUTS = [
    # round, cups of the 7:0 team, cups of the other team (the pages' table, a ranked 0:0 match)
    pytest.param("kort", None, +10, -5, id="kort-stop"),  # 5 + 2 + 3 / -5
    pytest.param("at_kort", None, +12, -7, id="at_kort-stop"),  # 7 + 2 + 3 / -7
    pytest.param("bavan", None, +15, -10, id="bavan-made"),  # 10 + 2 + 3 / -10
    pytest.param("at_bavan", None, +18, -13, id="at_bavan-made"),  # 13 + 2 + 3 / -13
    pytest.param("bavan_failed", "own", -5, +10, id="kort-bavan-failed"),  # -5 / 5 + 2 + 3
    pytest.param("bavan_failed", "other", -5, +10, id="at_kort-bavan-failed"),  # -5 / 5 + 2 + 3
]


@pytest.mark.parametrize("shutout_team", [A, B])
@pytest.mark.parametrize(("outcome", "trump", "shutout_cups", "other_cups"), FIRST_ROUND_SHUTOUTS)
def test_a_match_decided_by_its_first_round(outcome, trump, shutout_cups, other_cups, shutout_team):
    trump_team = {"own": shutout_team, "other": shutout_team.other, None: None}[trump]
    result = played(outcome, shutout_team, trump_team)
    match_winner = result.winner

    cups = cups_for([result], match_winner)

    assert cups == {shutout_team: shutout_cups, shutout_team.other: other_cups}


# --- §7: matches of plain wins and mixed outcomes -----------------------------------------------


def plain_wins(sequence: str) -> list[RoundResult]:
    """Plain wins in order, e.g. "ABA" (the round winner also called trump)."""
    return [played("win", Team(letter)) for letter in sequence]


@pytest.mark.parametrize("winner", [A, B])
def test_a_ranked_3_0_of_plain_wins(winner):
    # winners: +1 +1 +1 + 2 bonus + 3 (the losers ended on 0) = +8; losers: -3
    results = plain_wins(winner.value * 3)

    assert cups_for(results, winner) == {winner: +8, winner.other: -3}


def test_a_ranked_3_2_of_plain_wins():
    # A wins 3, loses 2: 3 - 2 = +1, + 2 bonus = +3; B: 2 - 3 = -1, no bonus, no penalty.
    results = plain_wins("ABBAA")

    assert cups_for(results, A) == {A: +3, B: -1}


def test_a_ranked_3_1_won_by_b():
    # B: 3 - 1 + 2 = +4; A: 1 - 3 = -2.
    results = plain_wins("BABB")

    assert cups_for(results, B) == {A: -2, B: +4}


def test_a_match_closed_by_an_at_bavan_overshoots():
    # Wins: A 1, B 1, B 2, A 2, then A's At-bavan (+13) ends it 15:2.
    # A: +1 -1 -1 +1 +13 + 2 bonus = +15; B: -1 +1 +1 -1 -13 = -13.
    results = [*plain_wins("ABBA"), played("at_bavan", A)]

    assert cups_for(results, A) == {A: +15, B: -13}


def test_a_failed_bavan_ends_a_match_for_the_other_team():
    # R1 A wins (A 1), R2 B wins (B 1), R3 A is 7:0 as trump team, goes, fails: B +5 (B 6).
    # A: +1 -1 -5 = -5; B: -1 +1 +5 + 2 bonus = +7 (A has 1 win: no sweep bonus).
    results = [*plain_wins("AB"), played("bavan_failed", A)]

    assert cups_for(results, B) == {A: -5, B: +7}


def test_the_sweep_bonus_counts_wins_not_rounds():
    # R1 A wins, R2 A wins, R3 B is 7:0 as defenders, goes for Bavan and fails: A +5 (7:0 wins).
    # B won no round and has 0 wins: A gets 1 + 1 + 5 + 2 + 3 = +12; B: -1 -1 -5 = -7.
    results = [*plain_wins("AA"), played("bavan_failed", B, trump=A)]

    assert cups_for(results, A) == {A: +12, B: -7}


def test_a_kort_after_a_lost_round_earns_no_sweep_bonus():
    # R1 B wins (B 1), R2 A Kort (A 5). A: -1 +5 +2 = +6; B: +1 -5 = -4.
    results = [*plain_wins("B"), played("kort", A)]

    assert cups_for(results, A) == {A: +6, B: -4}


# --- §8: one round from both teams' view --------------------------------------------------------


def outcome_counts(**counts: tuple[int, int]) -> dict[Outcome, tuple[int, int]]:
    """The five shutout counts, (team, opponents); unnamed ones are (0, 0)."""
    line = dict.fromkeys(SHUTOUT_OUTCOMES, (0, 0))
    line.update({Outcome(name): pair for name, pair in counts.items()})
    return line


ROUND_STATS = [
    # round played (by the team named "7:0"), viewer -> rounds won, outcome counts, called, made
    ("kort", "own", 1, {"kort": (1, 0)}, 0, 0),
    ("kort", "other", 0, {"kort": (0, 1)}, 0, 0),
    ("at_kort", "own", 1, {"at_kort": (1, 0)}, 0, 0),
    ("at_kort", "other", 0, {"at_kort": (0, 1)}, 0, 0),
    ("bavan", "own", 1, {"bavan": (1, 0)}, 1, 1),
    ("bavan", "other", 0, {"bavan": (0, 1)}, 0, 0),
    ("at_bavan", "own", 1, {"at_bavan": (1, 0)}, 1, 1),
    ("at_bavan", "other", 0, {"at_bavan": (0, 1)}, 0, 0),
    ("bavan_failed", "own", 0, {"bavan_failed": (1, 0)}, 1, 0),
    ("bavan_failed", "other", 1, {"bavan_failed": (0, 1)}, 0, 0),
]


@pytest.mark.parametrize("shutout_team", [A, B])
@pytest.mark.parametrize(("outcome", "viewer", "won", "counts", "called", "made"), ROUND_STATS)
def test_round_stats_of_a_shutout(outcome, viewer, won, counts, called, made, shutout_team):
    team = shutout_team if viewer == "own" else shutout_team.other

    line = round_stats(played(outcome, shutout_team), team)

    assert line == StatsLine(
        rounds_played=1,
        rounds_won=won,
        bavan_called=called,
        bavan_made=made,
        outcomes=outcome_counts(**counts),
    )


@pytest.mark.parametrize("shutout_team", [A, B])
@pytest.mark.parametrize("trump", ["own", "other"])
def test_a_failed_bavan_counts_for_the_bavan_team_whoever_called_trump(shutout_team, trump):
    trump_team = shutout_team if trump == "own" else shutout_team.other
    result = played("bavan_failed", shutout_team, trump_team)

    own, other = round_stats(result, shutout_team), round_stats(result, shutout_team.other)

    assert (own.bavan_called, own.bavan_made, own.rounds_won) == (1, 0, 0)
    assert (other.bavan_called, other.bavan_made, other.rounds_won) == (0, 0, 1)
    assert own.outcomes[Outcome.BAVAN_FAILED] == (1, 0)
    assert other.outcomes[Outcome.BAVAN_FAILED] == (0, 1)


@pytest.mark.parametrize("round_winner", [A, B])
def test_a_plain_win_counts_only_as_a_round(round_winner):
    result = played("win", round_winner, trump=round_winner.other)

    assert round_stats(result, round_winner) == StatsLine(rounds_played=1, rounds_won=1)
    assert round_stats(result, round_winner.other) == StatsLine(rounds_played=1)


# --- §8: a whole match --------------------------------------------------------------------------


def test_match_stats_of_a_mixed_room_match():
    # A room match (to 7), by round: A win (A1), B Kort (B5), A goes for Bavan as defenders and
    # fails (B10). B wins the match 10:1.
    results = [
        played("win", A),
        played("kort", B),
        played("bavan_failed", A, trump=B),
    ]

    for_a = match_stats(results, B, A)
    for_b = match_stats(results, B, B)

    # A: 3 rounds, won 1 (the plain win); Kort by the opponents; its own failed Bavan.
    assert for_a == StatsLine(
        matches_played=1,
        matches_won=0,
        matches_lost=1,
        rounds_played=3,
        rounds_won=1,
        bavan_called=1,
        bavan_made=0,
        outcomes=outcome_counts(kort=(0, 1), bavan_failed=(1, 0)),
    )
    # B: 3 rounds, won 2 (the Kort, and the round A's Bavan failed); the mirror counts.
    assert for_b == StatsLine(
        matches_played=1,
        matches_won=1,
        matches_lost=0,
        rounds_played=3,
        rounds_won=2,
        bavan_called=0,
        bavan_made=0,
        outcomes=outcome_counts(kort=(1, 0), bavan_failed=(0, 1)),
    )


def test_match_stats_count_every_bavan_called_and_made():
    # Two matches won by A. First: B wins (B1), then A as defenders makes an At-bavan (A13).
    first = [played("win", B), played("at_bavan", A)]
    # Second: A as trump team goes for Bavan and fails (B5), then makes a Bavan (A10).
    second = [played("bavan_failed", A), played("bavan", A)]

    total = match_stats(first, A, A) + match_stats(second, A, A)

    # Rounds: 2 + 2; won: at_bavan, bavan = 2. Called: at_bavan, bavan_failed, bavan = 3; made 2.
    assert total == StatsLine(
        matches_played=2,
        matches_won=2,
        matches_lost=0,
        rounds_played=4,
        rounds_won=2,
        bavan_called=3,
        bavan_made=2,
        outcomes=outcome_counts(at_bavan=(1, 0), bavan=(1, 0), bavan_failed=(1, 0)),
    )


def test_an_empty_stats_line_is_the_identity_of_addition():
    line = match_stats(plain_wins("AAB"), A, B)

    assert line + StatsLine() == line
    assert StatsLine() + line == line

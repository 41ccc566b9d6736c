"""Properties of the KORT rules over generated legal rounds, matches, votes and statistics.

Legal rounds come from the §2 oracle in ``test_rules``; expectations are derived from it and from
the rulebook, never from the functions under test.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from matches.kort.rules import (
    SHUTOUT_OUTCOMES,
    BavanDecision,
    CastVote,
    StatsLine,
    Team,
    Vote,
    match_cups,
    match_stats,
    match_winner,
    next_trump_seat,
    resolve_votes,
    round_outcome,
)
from tests.matches.kort.test_rules import LEGAL_SHAPES, SEATS, expected_result, tricks

A, B = Team.A, Team.B
TARGETS = (3, 7)


@st.composite
def legal_scores(draw) -> tuple[int, int, BavanDecision | None]:
    """A legal final score (tricks of A, tricks of B) and its Bavan decision."""
    high, low, decision = draw(st.sampled_from(sorted(LEGAL_SHAPES, key=str)))
    return (high, low, decision) if draw(st.booleans()) else (low, high, decision)


def expected_next_seat(seat: int, outcome: str, winner: Team, trump_team: Team) -> int:
    """§5: partner after kort / bavan, same caller when the trump team won, else the next seat."""
    if outcome in ("kort", "bavan"):
        return (seat + 2) % 4
    return seat if winner is trump_team else (seat + 1) % 4


@given(st.sampled_from(SEATS), legal_scores())
def test_every_legal_summary_awards_match_wins_and_a_seat(seat, score):
    a, b, decision = score

    result = round_outcome(seat, tricks(a, b), decision)

    assert result.wins_awarded > 0
    assert next_trump_seat(seat, result) in SEATS


def play_match(data, first_seat: int, target: int):
    """Legal rounds from ``first_seat``, each caller given by §5, until a team reaches ``target``.

    Returns the rounds as results and the match wins, counted from the oracle."""
    seat, wins, results = first_seat, {A: 0, B: 0}, []
    while max(wins.values()) < target:
        a, b, decision = data.draw(legal_scores())
        expected = expected_result(seat, a, b, decision)
        assert expected is not None
        assert match_winner(wins, target) is None

        result = round_outcome(seat, tricks(a, b), decision)

        next_seat = next_trump_seat(seat, result)
        assert next_seat == expected_next_seat(
            seat, expected.outcome, expected.winner, expected.trump_team
        )
        wins[expected.winner] += expected.wins_awarded
        results.append(result)
        seat = next_seat
    return results, wins


matches = given(st.data(), st.sampled_from(SEATS), st.sampled_from(TARGETS))


@matches
def test_a_match_ends_when_a_team_reaches_the_target(data, first_seat, target):
    _, wins = play_match(data, first_seat, target)

    winner = match_winner(wins, target)

    assert winner is not None
    assert wins[winner] >= target
    assert wins[winner.other] < target


@matches
def test_cups_cancel_but_for_the_bonus(data, first_seat, target):
    results, wins = play_match(data, first_seat, target)
    winner = A if wins[A] >= target else B
    loser = winner.other
    bonus = 2 + (3 if wins[loser] == 0 else 0)

    cups = match_cups(results, winner, wins)

    assert cups[A] + cups[B] == bonus
    # Each round moves v cups from loser to winner, and v is the match wins it awarded.
    assert cups[winner] == wins[winner] - wins[loser] + bonus
    assert cups[loser] == wins[loser] - wins[winner]


@matches
def test_stats_of_both_teams_split_every_round(data, first_seat, target):
    results, wins = play_match(data, first_seat, target)
    winner = A if wins[A] >= target else B

    for_a, for_b = match_stats(results, winner, A), match_stats(results, winner, B)

    assert for_a.rounds_played == for_b.rounds_played == len(results)
    assert for_a.rounds_won + for_b.rounds_won == len(results)
    assert for_a.matches_won + for_b.matches_won == 1
    assert for_a.matches_lost + for_b.matches_lost == 1
    for outcome in SHUTOUT_OUTCOMES:
        assert for_a.outcomes[outcome] == for_b.outcomes[outcome][::-1]
    assert for_a.bavan_made <= for_a.bavan_called


counts = st.integers(min_value=0, max_value=1000)
stats_lines = st.builds(
    StatsLine,
    matches_played=counts,
    matches_won=counts,
    matches_lost=counts,
    rounds_played=counts,
    rounds_won=counts,
    bavan_called=counts,
    bavan_made=counts,
    outcomes=st.fixed_dictionaries({o: st.tuples(counts, counts) for o in SHUTOUT_OUTCOMES}),
)


@given(stats_lines, stats_lines, stats_lines)
def test_stats_lines_add_associatively(x, y, z):
    assert (x + y) + z == x + (y + z)


@given(stats_lines, stats_lines)
def test_stats_lines_add_commutatively(x, y):
    assert x + y == y + x


# --- §4: a valid vote resolves the same whatever order it is listed in --------------------------


@st.composite
def valid_votes(draw, team: Team) -> list[CastVote]:
    """Votes §4 accepts: each seat votes at most once, in 0..30000 ms at distinct times, and
    nothing follows a stop."""
    times = draw(st.lists(st.integers(0, 30_000), min_size=2, max_size=2, unique=True))
    choices = [draw(st.sampled_from([None, Vote.BAVAN, Vote.STOP])) for _ in team.seats]
    cast = sorted(
        (
            CastVote(seat, choice, at_ms)
            for seat, choice, at_ms in zip(team.seats, choices, times, strict=True)
            if choice is not None
        ),
        key=lambda v: v.at_ms,
    )
    if cast and cast[0].vote is Vote.STOP:
        cast = cast[:1]
    return cast


def expected_decision(cast: list[CastVote]) -> tuple[BavanDecision, int]:
    """§4 table, over votes in time order."""
    for position, vote in enumerate(cast):
        if vote.vote is Vote.STOP:
            return BavanDecision.STOP, vote.at_ms
        if position == 1:
            return BavanDecision.GO, vote.at_ms
    return (BavanDecision.GO if cast else BavanDecision.STOP), 30_000


@given(st.data(), st.sampled_from([A, B]))
def test_a_valid_vote_resolves_the_same_in_any_listed_order(data, team):
    cast = data.draw(valid_votes(team))
    listed = data.draw(st.permutations(cast))

    tally = resolve_votes(team, listed)

    assert (tally.decision, tally.resolved_at_ms) == expected_decision(cast)

"""The Bavan vote (KORT_RULES §4): who may vote, until when, and what the votes resolve to."""

from __future__ import annotations

import pytest

from matches.kort.rules import (
    BavanDecision,
    CastVote,
    InvalidRoundError,
    Team,
    Vote,
    VoteTally,
    resolve_votes,
)

GO = BavanDecision.GO
STOP = BavanDecision.STOP
DEADLINE_MS = 30_000


def vote(seat: int, choice: str, at_ms: int) -> CastVote:
    return CastVote(seat, Vote(choice), at_ms)


def seats_of(team: Team) -> tuple[int, int]:
    return (0, 2) if team is Team.A else (1, 3)


def opponent_seats_of(team: Team) -> tuple[int, int]:
    return seats_of(team.other)


both_teams = pytest.mark.parametrize("team", [Team.A, Team.B])


# --- The §4 table -------------------------------------------------------------------------------

VOTE_TABLE = [
    # (first voter's choice and time, partner's choice and time) -> decision, resolved at
    pytest.param([("stop", 1200)], STOP, 1200, id="one stop, partner silent"),
    pytest.param([("stop", 1200), ("bavan", 800)], STOP, 1200, id="bavan then stop"),
    pytest.param([(None, None), ("stop", 700)], STOP, 700, id="partner stop, silence"),
    pytest.param([("stop", DEADLINE_MS)], STOP, DEADLINE_MS, id="stop at the deadline"),
    pytest.param([("bavan", 900), ("bavan", 2500)], GO, 2500, id="two bavan, the second one"),
    pytest.param([("bavan", 900)], GO, DEADLINE_MS, id="bavan and silence"),
    pytest.param([(None, None), ("bavan", 29_999)], GO, DEADLINE_MS, id="partner bavan, silence"),
    pytest.param([], STOP, DEADLINE_MS, id="both silent"),
]


def votes_from(team: Team, choices) -> list[CastVote]:
    """The listed (choice, at_ms) pairs cast by the team's seats in turn; None is a silent seat."""
    return [
        vote(seat, choice, at_ms)
        for seat, (choice, at_ms) in zip(seats_of(team), choices, strict=False)
        if choice is not None
    ]


@both_teams
@pytest.mark.parametrize(("choices", "decision", "resolved_at_ms"), VOTE_TABLE)
def test_vote_table(team, choices, decision, resolved_at_ms):
    tally = resolve_votes(team, votes_from(team, choices))

    assert tally.decision is decision
    assert tally.resolved_at_ms == resolved_at_ms
    assert tally.team is team


@both_teams
def test_votes_are_taken_in_time_order_whatever_the_list_order(team):
    first, second = seats_of(team)
    cast = [vote(second, "bavan", 9000), vote(first, "bavan", 3000)]

    tally = resolve_votes(team, cast)

    assert tally.decision is GO
    assert tally.resolved_at_ms == 9000
    assert [v.seat for v in tally.votes] == [first, second]


# --- The 30 s window ----------------------------------------------------------------------------


@pytest.mark.parametrize(("choice", "decision"), [("stop", STOP), ("bavan", GO)])
def test_a_vote_at_exactly_30000_ms_is_in_time(choice, decision):
    cast = [vote(0, "bavan", 10_000), vote(2, choice, DEADLINE_MS)]

    tally = resolve_votes(Team.A, cast)

    assert tally.decision is decision
    assert tally.resolved_at_ms == DEADLINE_MS


def test_a_vote_at_0_ms_is_in_time():
    tally = resolve_votes(Team.B, [vote(3, "stop", 0)])

    assert (tally.decision, tally.resolved_at_ms) == (STOP, 0)


def rejection(team: Team, cast: list[CastVote]) -> str:
    """The message of the rejected vote report; the error always concerns ``bavan_votes``."""
    with pytest.raises(InvalidRoundError) as caught:
        resolve_votes(team, cast)
    assert caught.value.field == "bavan_votes"
    return caught.value.message


@pytest.mark.parametrize("choice", ["bavan", "stop"])
def test_a_vote_at_30001_ms_is_late(choice):
    message = rejection(Team.A, [vote(2, choice, DEADLINE_MS + 1)])

    assert "30001 ms" in message
    assert "seat 2" in message


def test_a_late_vote_is_rejected_even_after_a_bavan_in_time():
    message = rejection(Team.B, [vote(1, "bavan", 1000), vote(3, "bavan", 45_000)])

    assert "45000 ms" in message


@pytest.mark.parametrize("at_ms", [-1, -30_000])
def test_a_negative_time_is_rejected(at_ms):
    message = rejection(Team.A, [vote(0, "bavan", at_ms)])

    assert f"{at_ms} ms" in message


# --- Who may vote, and only once ----------------------------------------------------------------


@both_teams
@pytest.mark.parametrize("opponent_index", [0, 1])
def test_an_opponent_cannot_vote(team, opponent_index):
    opponent = opponent_seats_of(team)[opponent_index]

    message = rejection(team, [vote(opponent, "stop", 500)])

    assert f"seat {opponent} cannot vote" in message
    assert "7:0 team" in message


@pytest.mark.parametrize("seat", [4, -1])
def test_a_seat_off_the_table_cannot_vote(seat):
    message = rejection(Team.A, [vote(seat, "bavan", 500)])

    assert f"seat {seat} cannot vote" in message


@both_teams
@pytest.mark.parametrize(("first", "second"), [("bavan", "stop"), ("bavan", "bavan")])
def test_a_vote_cannot_be_changed(team, first, second):
    seat = seats_of(team)[0]

    message = rejection(team, [vote(seat, first, 1000), vote(seat, second, 2000)])

    assert f"seat {seat} already voted" in message
    assert "cannot be changed" in message


@both_teams
def test_a_vote_after_a_stop_is_rejected(team):
    first, second = seats_of(team)

    message = rejection(team, [vote(first, "stop", 1000), vote(second, "bavan", 2000)])

    assert f"seat {second} voted after the vote was resolved at 1000 ms" in message


@pytest.mark.parametrize("late_choice", ["bavan", "stop"])
def test_the_partners_vote_after_a_stop_is_rejected_whatever_it_says(late_choice):
    message = rejection(Team.B, [vote(1, "stop", 400), vote(3, late_choice, 401)])

    assert "resolved at 400 ms" in message


def test_a_vote_after_two_bavan_is_rejected_as_a_second_vote():
    cast = [vote(0, "bavan", 100), vote(2, "bavan", 200), vote(2, "stop", 300)]

    message = rejection(Team.A, cast)

    assert "seat 2 already voted" in message


def test_a_vote_listed_first_but_cast_after_the_stop_is_rejected():
    message = rejection(Team.A, [vote(2, "bavan", 2000), vote(0, "stop", 1000)])

    assert "resolved at 1000 ms" in message


# --- The tally, vote by vote --------------------------------------------------------------------


def test_a_tally_stays_open_after_one_bavan():
    tally = VoteTally(Team.A).cast(vote(0, "bavan", 1500))

    assert tally.decision is None
    assert tally.resolved_at_ms is None


def test_the_deadline_does_not_change_a_resolved_tally():
    tally = VoteTally(Team.B).cast(vote(1, "stop", 1500))

    assert tally.at_deadline() == tally


def test_casting_leaves_the_earlier_tally_unchanged():
    empty = VoteTally(Team.A)

    empty.cast(vote(0, "stop", 100))

    assert empty.votes == ()
    assert empty.decision is None


def test_a_tally_names_the_field_it_is_told():
    with pytest.raises(InvalidRoundError) as caught:
        VoteTally(Team.A).cast(vote(1, "bavan", 100), field="vote")

    assert caught.value.field == "vote"

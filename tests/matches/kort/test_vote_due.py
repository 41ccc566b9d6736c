"""What is due in a live Bavan vote at a moment (KORT_RULES §4, §9): ``vote_due.due_events``,
pure. The bots vote 2 s after the start (or from when their player left, if later), beside a
human ``bavan``, beside a bot ``stop`` unless the Bavan is guaranteed (§6); silence resolves
once the time is strictly past the deadline. Expectations come from the rulebook's table."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from matches.kort.rules import BavanDecision, CastVote, Team, Vote
from matches.kort.vote_due import Voter, VoteState, due_events

A = Team.A
LENGTH_MS = 30_000


def state(*voters: Voter, votes=(), guaranteed=False, length_ms=LENGTH_MS) -> VoteState:
    first, second = voters
    return VoteState(
        A, (first, second), tuple(votes), length_ms=length_ms, bavan_guaranteed=guaranteed
    )


HUMANS = (Voter(0), Voter(2))


def test_nothing_is_due_before_2_s_and_silence_is_open_until_past_the_deadline():
    assert not due_events(state(*HUMANS), 1_999)
    assert not due_events(state(Voter(0), Voter(2, 0)), 1_999)
    assert not due_events(state(*HUMANS), LENGTH_MS)


def test_silence_past_the_deadline_refuses_at_the_deadline():
    due = due_events(state(*HUMANS), LENGTH_MS + 1)

    assert (due.bot_votes, due.decision, due.resolved_at_ms) == ((), BavanDecision.STOP, 30_000)


def test_one_bavan_and_silence_go_at_the_deadline():
    due = due_events(state(*HUMANS, votes=[CastVote(0, Vote.BAVAN, 4_000)]), 45_000)

    assert (due.decision, due.resolved_at_ms) == (BavanDecision.GO, 30_000)


def test_a_bot_beside_a_human_votes_bavan_at_2_s_when_stamped_when_due():
    due = due_events(state(Voter(0), Voter(2, 0)), 3_500)

    assert due.bot_votes == (CastVote(2, Vote.BAVAN, 2_000),)
    assert due.decision is None


def test_a_bot_cast_by_a_task_is_stamped_when_the_task_runs():
    due = due_events(state(Voter(0), Voter(2, 0)), 3_500, stamped_when_due=False)

    assert due.bot_votes == (CastVote(2, Vote.BAVAN, 3_500),)


def test_a_bot_task_past_the_deadline_casts_nothing_and_silence_refuses():
    due = due_events(state(Voter(0), Voter(2, 0)), 40_000, stamped_when_due=False)

    assert (due.bot_votes, due.decision, due.resolved_at_ms) == ((), BavanDecision.STOP, 30_000)


def test_a_bot_due_before_the_deadline_goes_with_silence_when_settled_late():
    due = due_events(state(Voter(0), Voter(2, 0)), 35_000)

    assert due.bot_votes == (CastVote(2, Vote.BAVAN, 2_000),)
    assert (due.decision, due.resolved_at_ms) == (BavanDecision.GO, 30_000)


def test_two_bots_stop_at_2_s_unless_the_bavan_is_guaranteed():
    bots = (Voter(0, 0), Voter(2, 0))

    stopped = due_events(state(*bots), 6_000)
    went = due_events(state(*bots, guaranteed=True), 6_000)

    assert stopped.bot_votes == (CastVote(0, Vote.STOP, 2_000),)
    assert (stopped.decision, stopped.resolved_at_ms) == (BavanDecision.STOP, 2_000)
    assert went.bot_votes == (CastVote(0, Vote.BAVAN, 2_000), CastVote(2, Vote.BAVAN, 2_000))
    assert (went.decision, went.resolved_at_ms) == (BavanDecision.GO, 2_000)


def test_a_player_who_left_gets_the_bot_vote_from_when_they_left():
    due = due_events(state(Voter(0), Voter(2, 5_000)), 4_999)
    assert not due

    due = due_events(state(Voter(0), Voter(2, 5_000)), 9_000)
    assert due.bot_votes == (CastVote(2, Vote.BAVAN, 5_000),)


def test_a_resolved_vote_owes_nothing():
    resolved = VoteState(A, (Voter(0, 0), Voter(2, 0)), resolved=True)

    assert not due_events(resolved, 60_000)


def test_the_deadline_is_the_votes_own_length():
    short = state(*HUMANS, length_ms=12_000)

    assert not due_events(short, 12_000)
    assert due_events(short, 12_001).resolved_at_ms == 12_000


# --- properties -----------------------------------------------------------------------------

TIMES = st.integers(-1_000, 45_000)


@st.composite
def vote_states(draw) -> VoteState:
    """An open vote of team A: each voter a seated human, a bot (from 0) or a player who left
    at some moment; a human may have voted (at most once each, in time, before the bots' 2 s
    so that the stored votes are those a settle would have left)."""
    voters = []
    votes = []
    for seat in A.seats:
        kind = draw(st.sampled_from(["human", "bot", "left"]))
        bot_from = {"human": None, "bot": 0, "left": draw(st.integers(-5_000, 40_000))}[kind]
        voters.append(Voter(seat, bot_from))
        if bot_from is None and draw(st.booleans()):
            votes.append(CastVote(seat, Vote.BAVAN, draw(st.integers(0, 1_999))))
    return VoteState(A, (voters[0], voters[1]), tuple(votes), bavan_guaranteed=draw(st.booleans()))


@given(vote_states(), TIMES, TIMES, st.booleans())
def test_what_is_due_grows_with_time(vote, earlier, later, stamped_when_due):
    earlier, later = sorted((earlier, later))
    first = due_events(vote, earlier)
    then = due_events(vote, later)

    # Stamped when due, what is due by a moment is still due, the same, later on.
    assert then.bot_votes[: len(first.bot_votes)] == first.bot_votes
    if first.decision is not None:
        assert (then.decision, then.resolved_at_ms) == (first.decision, first.resolved_at_ms)
    # Either way, a vote once resolved stays resolved.
    if due_events(vote, earlier, stamped_when_due=stamped_when_due).decision is not None:
        assert due_events(vote, later, stamped_when_due=stamped_when_due).decision is not None


@given(vote_states(), TIMES, st.booleans())
def test_each_bot_seat_votes_at_most_once_never_before_due_nor_past_the_deadline(
    vote, at_ms, stamped_when_due
):
    due = due_events(vote, at_ms, stamped_when_due=stamped_when_due)
    seats = [cast.seat for cast in due.bot_votes]
    voters = {voter.seat: voter for voter in vote.voters}
    voted = {cast.seat for cast in vote.votes}

    assert len(seats) == len(set(seats))
    for cast in due.bot_votes:
        voter = voters[cast.seat]
        assert voter.counts_as_bot and cast.seat not in voted
        assert max(2_000, voter.bot_from_ms or 0) <= cast.at_ms <= min(at_ms, vote.length_ms)


@given(vote_states(), TIMES, st.booleans())
def test_the_resolution_is_never_before_its_time(vote, at_ms, stamped_when_due):
    # A vote is read at a moment after the votes it holds were cast (they are stored by then).
    assume(all(cast.at_ms <= at_ms for cast in vote.votes))
    due = due_events(vote, at_ms, stamped_when_due=stamped_when_due)

    if due.decision is None:
        assert at_ms <= vote.length_ms
    else:
        assert due.resolved_at_ms is not None and due.resolved_at_ms <= min(at_ms, vote.length_ms)

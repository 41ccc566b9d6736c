"""A Bavan vote of configurable length (30 000 ms by KORT_RULES §4), resolving a vote still in
progress, and when the 7:0 team's hands are shown (§4)."""

from __future__ import annotations

import pytest

from matches.kort.rules import (
    BavanDecision,
    CastVote,
    InvalidRoundError,
    Team,
    Vote,
    VoteTally,
    hands_shown,
    resolve_votes,
)


def test_the_default_length_is_30_000_ms():
    tally = resolve_votes(Team.A, [CastVote(0, Vote.BAVAN, 30_000)])

    assert (tally.decision, tally.resolved_at_ms) == (BavanDecision.GO, 30_000)
    assert VoteTally(Team.A).length_ms == 30_000


def test_a_shorter_vote_takes_votes_up_to_its_length():
    tally = resolve_votes(Team.B, [CastVote(3, Vote.STOP, 2_000)], length_ms=2_000)

    assert (tally.decision, tally.resolved_at_ms) == (BavanDecision.STOP, 2_000)


def test_a_shorter_vote_rejects_a_vote_after_its_length():
    with pytest.raises(InvalidRoundError, match="from 0 to 2000 ms"):
        resolve_votes(Team.B, [CastVote(1, Vote.BAVAN, 2_001)], length_ms=2_000)


@pytest.mark.parametrize(
    ("votes", "decision", "resolved_at_ms"),
    [
        ([CastVote(0, Vote.BAVAN, 1_500)], BavanDecision.GO, 2_000),
        ([], BavanDecision.STOP, 2_000),
    ],
)
def test_silence_resolves_at_the_end_of_a_shorter_vote(votes, decision, resolved_at_ms):
    tally = resolve_votes(Team.A, votes, length_ms=2_000)

    assert (tally.decision, tally.resolved_at_ms) == (decision, resolved_at_ms)


def test_a_vote_in_progress_stays_undecided_until_the_votes_settle_it():
    one = [CastVote(2, Vote.BAVAN, 900)]

    assert resolve_votes(Team.A, one, until_deadline=False).decision is None
    both = resolve_votes(Team.A, [*one, CastVote(0, Vote.BAVAN, 400)], until_deadline=False)
    assert (both.decision, both.resolved_at_ms) == (BavanDecision.GO, 900)


@pytest.mark.parametrize(
    ("at_ms", "resolved_at_ms", "shown"),
    [
        (-1, None, False),
        (0, None, True),
        (40_000, None, True),
        (15_000, 3_000, True),
        (15_001, 3_000, False),
        (22_000, 22_000, True),
        (22_001, 22_000, False),
    ],
)
def test_hands_are_shown_15_s_and_until_the_decision(at_ms, resolved_at_ms, shown):
    assert hands_shown(at_ms, resolved_at_ms) is shown

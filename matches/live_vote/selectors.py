"""Reads of the live Bavan vote (KORT_RULES §4; API.md "Live Bavan vote")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from matches.kort.rules import Team, hands_shown
from matches.live_vote.models import BavanVote
from matches.records import hands_at_vote


def bavan_vote(**lookup) -> BavanVote | None:
    """The live Bavan vote found by ``lookup`` (``round=``, or ``round__match_id=`` and
    ``round__number=``) with its votes and round, or None."""
    votes = BavanVote.objects.select_related("round").prefetch_related("seat_votes")
    return votes.filter(**lookup).first()


def vote_seen(vote: BavanVote, now: datetime) -> BavanVote:
    """``vote`` as everyone sees it at ``now``: sets ``vote.revealed_hands`` to the 7:0 team's
    unplayed cards (``{"<seat>": [cards]}``) while they are shown, else None. Returns the vote.

    The hands come from the record the vote was opened with; a vote opened in summary form
    shows none (KORT_RULES §4)."""
    hands = hands_at_vote(vote.opening_play, vote.round.trump_seat)
    vote.revealed_hands = revealed_hands(vote, hands, now)
    return vote


def revealed_hands(
    vote: BavanVote, hands: Mapping[int, Sequence[str]] | None, now: datetime
) -> dict[str, list[str]] | None:
    """The 7:0 team's hands as everyone sees them at ``now`` (``{"<seat>": [cards]}``), or None
    when hidden: shown from the vote's start until at least 15 s after it, and until the
    decision if that is later; the opponents' hands never (KORT_RULES §4).

    ``hands`` maps seats to their unplayed cards; a round in summary form has none (None), so
    nothing is shown.
    """
    if hands is None:
        return None
    resolved_ms = None if vote.resolved_at is None else vote.ms_at(vote.resolved_at)
    if not hands_shown(vote.ms_at(now), resolved_ms):
        return None
    return {str(seat): list(hands[seat]) for seat in Team(vote.team).seats}

"""Reads of the live Bavan vote (KORT_RULES §4; API.md "Live Bavan vote")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from django.db.models import Exists, OuterRef, Q, QuerySet

from matches.kort.rules import BOT_VOTE_DELAY_MS, Team, hands_shown
from matches.live_vote.models import BavanVote, SeatVote, VoteStatus
from matches.models import Seat
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


def votes_past_deadline(before: datetime) -> QuerySet[BavanVote]:
    """Open votes whose deadline is before ``before``, the earliest deadline first: silence
    resolves them (KORT_RULES §4). The resolution itself judges the time exactly
    (``rules.past_deadline``)."""
    votes = BavanVote.objects.filter(status=VoteStatus.OPEN, deadline__lt=before)
    return votes.order_by("deadline", "pk")


def votes_with_bot_votes_due(before: datetime) -> QuerySet[BavanVote]:
    """Open votes opened more than 2 s before ``before`` in which a voter seat that counts as a
    bot (a bot, or a player who left) has not voted yet, the earliest opened first: their bot
    votes are due (KORT_RULES §4, §9)."""
    bot_voters = Q()
    for team in Team:
        bot_voters |= Q(team=team) & Q(Exists(_unvoted_bot_seats(team.seats)))
    due = BavanVote.objects.filter(
        status=VoteStatus.OPEN, opened_at__lt=before - timedelta(milliseconds=BOT_VOTE_DELAY_MS)
    )
    return due.filter(bot_voters).order_by("opened_at", "pk")


def _unvoted_bot_seats(seats: Sequence[int]) -> QuerySet[Seat]:
    """The seats among ``seats`` of the outer vote's match that count as bots
    (``Seat.counts_as_bot``) and have no vote in it."""
    voted = SeatVote.objects.filter(vote=OuterRef(OuterRef("pk")), seat=OuterRef("seat"))
    return Seat.objects.filter(
        Q(player__is_bot=True) | Q(left_at__isnull=False),
        match=OuterRef("round__match"),
        seat__in=seats,
    ).exclude(Exists(voted))

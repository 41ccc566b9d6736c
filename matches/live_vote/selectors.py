"""Reads of the live Bavan vote (KORT_RULES §4; API.md "Live Bavan vote").

Reads never write. A vote is shown as it is stored plus what is due in it at the moment read
and not written yet (``matches.kort.vote_due.due_events``: the bot votes, stamped when they
were due, and the resolution past the deadline), computed in memory; the vote's deadline task,
the sweeper and the write requests write it (``matches.live_vote.services.vote_settle``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Protocol

from django.db.models import Exists, OuterRef, Q, QuerySet

from matches.kort.bavan_search import bavan_guaranteed, position_at_vote
from matches.kort.rules import (
    BOT_VOTE_DELAY_MS,
    BavanDecision,
    CastVote,
    Team,
    Vote,
    hands_shown,
)
from matches.kort.vote_due import NOTHING_DUE, DueEvents, Voter, VoteState, due_events
from matches.live_vote.models import BavanVote, SeatVote, VoteStatus, ms_after
from matches.models import Round, Seat, SeatColumns
from matches.records import hands_at_vote


def bavan_vote(**lookup) -> BavanVote | None:
    """The live Bavan vote found by ``lookup`` (``round=``, or ``round__match_id=`` and
    ``round__number=``) with its votes and round, or None."""
    votes = BavanVote.objects.select_related("round").prefetch_related("seat_votes")
    return votes.filter(**lookup).first()


def voter_seats(vote: BavanVote) -> list[Seat]:
    """The two seats of the vote's 7:0 team, with their players, in seat order."""
    return list(
        Seat.objects.select_related("player")
        .filter(match_id=vote.round.match_id, seat__in=Team(vote.team).seats)
        .order_by("seat")
    )


def bavan_guaranteed_for(round_: Round) -> bool:
    """Whether the 7:0 team of ``round_`` can take every remaining trick whatever the
    opponents hold and play (the guaranteed Bavan, KORT_RULES §6), searched from the record the
    vote was opened with. A vote opened in summary form shows no hands, so nothing can be
    guaranteed and this returns False.
    """
    if round_.play is None:
        return False
    return bavan_guaranteed(**position_at_vote(round_.play, round_.trump_seat)).guaranteed


class VoterSeat(SeatColumns, Protocol):
    """A voter seat as :func:`vote_state` reads it: a ``Seat`` or a plain value
    (``matches.details.SeatValue``), each with what its columns tell (``SeatFacts``)."""

    @property
    def counts_as_bot(self) -> bool: ...


def vote_state(
    vote: BavanVote,
    seats: Sequence[VoterSeat],
    votes: Sequence[SeatVote],
    guaranteed_for: Callable[[Round], bool] = bavan_guaranteed_for,
) -> VoteState:
    """``vote`` as the pure rules see it (``matches.kort.vote_due``): its voter ``seats``
    (:func:`voter_seats`) and the ``votes`` cast so far, in the order they were counted. The
    §6 search (``guaranteed_for``) runs only when both voters count as bots and one of them
    has not voted: only their vote asks it."""
    voters = tuple(
        Voter(seat.seat, _bot_from_ms(vote, seat) if seat.counts_as_bot else None) for seat in seats
    )
    cast = tuple(CastVote(v.seat, Vote(v.choice), vote.ms_at(v.at)) for v in votes)
    state = VoteState(
        Team(vote.team),
        (voters[0], voters[1]),
        cast,
        resolved=vote.status != VoteStatus.OPEN,
        length_ms=vote.length_ms,
    )
    asks_search = state.both_bots and len(cast) < len(voters) and not state.resolved
    if asks_search and guaranteed_for(vote.round):
        return replace(state, bavan_guaranteed=True)
    return state


def _bot_from_ms(vote: BavanVote, seat: VoterSeat) -> int:
    """When a bot starts voting for ``seat`` (ms after the opening): from the start for a
    bot's seat, from when the player left for a leaver (KORT_RULES §4, §9)."""
    if seat.player_is_bot or seat.left_at is None:
        return 0
    return vote.ms_at(seat.left_at)


@dataclass(frozen=True)
class SeatVoteSeen:
    """One seat's vote as shown: ``choice`` ``bavan`` or ``stop``, cast ``at``, ``by_bot``."""

    seat: int
    choice: str
    at: datetime
    by_bot: bool


@dataclass(frozen=True)
class VoteSeen:
    """A live vote as everyone sees it at a moment (API.md "Live Bavan vote"), a plain value:
    the 7:0 ``team``, when it opened and its deadline, as stored, plus what is due by then
    (``due``: the ``status``, ``resolved_at`` and ``votes`` include it), with the team's
    ``revealed_hands`` while they are shown (``{"<seat>": [cards]}``, else None). ``votes``
    are in the order they were counted."""

    team: str
    opened_at: datetime
    deadline: datetime
    status: str
    resolved_at: datetime | None
    votes: tuple[SeatVoteSeen, ...]
    revealed_hands: dict[str, list[str]] | None
    due: DueEvents

    def ms_at(self, moment: datetime) -> int:
        """Whole milliseconds from the vote's opening to ``moment`` (``ms_after``)."""
        return ms_after(self.opened_at, moment)


def vote_seen(vote: BavanVote, now: datetime, seats: Sequence[VoterSeat] | None = None) -> VoteSeen:
    """``vote`` (read with its votes, :func:`bavan_vote`) as everyone sees it at ``now``: as
    stored plus what is due and not written yet, stamped when it was due (reads never write).
    Its voter ``seats`` (those of its team, in seat order) are read (:func:`voter_seats`) only
    while it is open, unless given.

    The hands come from the record the vote was opened with; a vote opened in summary form
    shows none (KORT_RULES §4)."""
    stored = list(vote.seat_votes.all())
    due = NOTHING_DUE
    if vote.status == VoteStatus.OPEN:  # a resolved vote owes nothing: its seats are not read
        voters = voter_seats(vote) if seats is None else seats
        due = due_events(vote_state(vote, voters, stored), vote.ms_at(now))
    shown = [SeatVoteSeen(v.seat, v.choice, v.at, v.by_bot) for v in stored]
    shown += [
        SeatVoteSeen(v.seat, v.vote.value, vote.moment_at(v.at_ms), True) for v in due.bot_votes
    ]
    status, resolved_at = vote.status, vote.resolved_at
    if due.decision is not None:
        assert due.resolved_at_ms is not None  # set with the decision
        status = VoteStatus.GO if due.decision is BavanDecision.GO else VoteStatus.REFUSED
        resolved_at = vote.moment_at(due.resolved_at_ms)
    seen = VoteSeen(
        vote.team, vote.opened_at, vote.deadline, status, resolved_at, tuple(shown), None, due
    )
    hands = hands_at_vote(vote.opening_play, vote.round.trump_seat)
    return replace(seen, revealed_hands=revealed_hands(seen, hands, now))


def revealed_hands(
    vote: BavanVote | VoteSeen, hands: Mapping[int, Sequence[str]] | None, now: datetime
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

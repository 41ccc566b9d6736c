"""A match read alone (API.md "Matches": ``GET /matches/{id}/``; "Players' pages": a match's
page), as plain values: the match, its seats and rounds and, when asked, the live vote of its
last round, as everyone sees them at a moment. The one read of a match's detail: the API's
match and the match page both render the :class:`MatchDetail` it returns.

Reads never write (KORT_RULES §4): what is due in the vote and not written yet (its bot votes,
its resolution past the deadline) is shown by :func:`match_seen`, a pure function of the values
read, and written only by the vote's deadline task, the sweeper and the write requests
(``matches.live_vote.services.vote_settle``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from domain.errors import NotFound
from matches.history import ROUND_COLUMNS, STORED_COLUMNS, HistoryRound, MatchValue
from matches.kort.rules import BavanDecision
from matches.live_vote.selectors import VoteSeen, bavan_vote, vote_seen
from matches.models import Match, MatchStatus, Round, RoundStatus, Seat, SeatFacts
from matches.rounds import round_finished

NO_MATCH = "No Match matches the given query."
"""The 404's message for a match that does not exist."""


@dataclass(frozen=True)
class SeatValue(SeatFacts):
    """A seat of a match, as stored (``matches.models.Seat``'s columns of the same names),
    with whether its player is a bot, and what they tell (``SeatFacts``)."""

    seat: int
    player_id: int
    player_is_bot: bool
    left_at: datetime | None
    """When the seat's player left (a bot plays for the seat from then), None while seated."""


SEAT_COLUMNS = ("seat", "player_id", "player__is_bot", "left_at")
"""The columns a :class:`SeatValue` is read from, in its fields' order."""


@dataclass(frozen=True)
class MatchDetail(MatchValue):
    """A match as its detail shows it at a moment: its value (with its rounds), its seats in
    seat order and the live vote of its last round as seen then (:func:`match_detail`)."""

    rounds: tuple[HistoryRound, ...]
    seated: tuple[SeatValue, ...]
    """The seats 0..3, with their players' ids as ``seats`` lists them."""
    vote: VoteSeen | None
    """The live vote of the last round as seen at the moment read, or None: none, or not
    read (:func:`match_detail`)."""


def match_detail(match_id: int, now: datetime, *, any_vote: bool = False) -> MatchDetail:
    """The match ``match_id`` as everyone sees it at ``now``: its columns, seats and rounds
    and, when its last round is voting (or, with ``any_vote``, whenever the last round had a
    live vote, as the match page shows it), that vote as seen at ``now``, with what is due in
    it by then shown on the round and the match (:func:`match_seen`). Three queries (the match,
    its seats with their players' bot flag, its rounds with the id of each one's vote), two
    more when the vote is read (the vote with its round, its votes). Nothing is written.

    Raises:
        NotFound: no match has the id ``match_id`` (404 :data:`NO_MATCH`).
    """
    row = Match.objects.filter(pk=match_id).values(*STORED_COLUMNS).first()
    if row is None:
        raise NotFound(NO_MATCH)
    seats = Seat.objects.filter(match_id=match_id).order_by("seat")
    seated = tuple(SeatValue(*columns) for columns in seats.values_list(*SEAT_COLUMNS))
    by_number = Round.objects.filter(match_id=match_id).order_by("number")
    read = list(by_number.values_list(*ROUND_COLUMNS, "bavan_vote__id"))
    rounds = tuple(HistoryRound(*columns) for *columns, _ in read)
    last_vote = read[-1][-1] if read else None
    detail = MatchDetail(
        **row,
        seats=tuple(seat.player_id for seat in seated),
        rounds=rounds,
        seated=seated,
        vote=None,
    )
    if last_vote is None or not (any_vote or rounds[-1].status == RoundStatus.VOTING):
        return detail
    vote = bavan_vote(pk=last_vote)
    if vote is None:  # deleted with its match since the rounds were read
        return detail
    voters = [seat for seat in seated if seat.team == vote.team]
    return match_seen(detail, vote_seen(vote, now, voters))


def match_seen(match: MatchDetail, vote: VoteSeen) -> MatchDetail:
    """``match`` with the live ``vote`` of its last round as seen at a moment: when the vote's
    resolution is due and not written yet, the round and the match as that resolution makes
    them (``go``: the round plays for Bavan; a refusal finishes it as a Kort / At-kort and the
    match moves on, ``matches.rounds.round_finished``, completed at the refusal's moment when
    that wins it; KORT_RULES §4, §5). Pure: a new value,
    ``match`` unchanged."""
    seen = replace(match, vote=vote)
    last = match.rounds[-1]
    decision = vote.due.decision
    if decision is None or last.status != RoundStatus.VOTING:
        return seen
    if match.status != MatchStatus.IN_PROGRESS:
        return seen
    if decision is BavanDecision.GO:
        shown = replace(last, status=RoundStatus.BAVAN, bavan=BavanDecision.GO)
        return replace(seen, rounds=(*match.rounds[:-1], shown))
    finish = round_finished(match, last, BavanDecision.STOP)
    finished = replace(last, **finish.round_columns)
    columns = dict(finish.match_columns)
    if columns.get("status") == MatchStatus.COMPLETED:  # completed when the vote refused
        columns["completed_at"] = vote.resolved_at
    return replace(seen, rounds=(*match.rounds[:-1], finished), **columns)

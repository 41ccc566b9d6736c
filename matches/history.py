"""The pages of a player's history (API.md "Players": ``/players/{id}/matches/``; "Players'
pages": "My games"), newest first, read by keyset: each page starts where the last one ended
in the order of ``matches.selectors.player_matches`` (``-history_at``, ``-id``, the order of
the index ``seat_history_order``), with no count, so a page deep in a long history costs what
the first one costs. The one place of the paging rules and of the history's read: the API's
``HistoryPagination`` and the players' page both read their pages here, as plain values
(:class:`HistoryMatch`), and turn the cursors into their own links.

A cursor is an opaque token naming the match a page starts after (or, for newer matches,
before): :class:`Cursor` writes and reads it; a token that is none of its is an
``InvalidCursor`` (``domain.paging``: a 400 on ``cursor``).
"""

from __future__ import annotations

import binascii
from base64 import urlsafe_b64decode, urlsafe_b64encode
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

from django.db.models import F, Q, QuerySet

from domain.paging import InvalidCursor
from matches.models import Match, MatchFacts, Round, RoundFacts, Seat

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
MAX_ID = 2**63 - 1
"""Match ids are 64-bit: a cursor naming a larger one is none of ours."""


def page_size(given: str | None, default: int = DEFAULT_PAGE_SIZE) -> int:
    """The page size a query asks for (``page_size``): ``default`` when missing, not a whole
    number or below 1; at most :data:`MAX_PAGE_SIZE` (more is cut to it)."""
    try:
        size = int(given) if given is not None else default
    except ValueError:
        return default
    return min(size, MAX_PAGE_SIZE) if size > 0 else default


@dataclass(frozen=True)
class Cursor:
    """Where a page starts: after the match ``match_id`` (created, as the player's seat holds
    it, at ``at``) going to older matches, or before it going to newer ones (``newer``)."""

    at: datetime
    match_id: int
    newer: bool

    def token(self) -> str:
        """The cursor as a query parameter's value (URL-safe)."""
        text = f"{'n' if self.newer else 'o'}|{self.at.isoformat()}|{self.match_id}"
        return urlsafe_b64encode(text.encode()).decode()

    @classmethod
    def of(cls, token: str) -> Cursor:
        """The cursor of ``token``.

        Raises:
            InvalidCursor: ``token`` is no cursor of this module.
        """
        try:
            way, at, match_id = urlsafe_b64decode(token.encode()).decode().split("|")
            moment, pk = datetime.fromisoformat(at), int(match_id)
            if way not in ("n", "o") or moment.tzinfo is None or not 0 < pk <= MAX_ID:
                raise ValueError(token)
            return cls(moment.astimezone(UTC), pk, way == "n")
        except (ValueError, OverflowError, binascii.Error, UnicodeError):
            raise InvalidCursor() from None


@dataclass(frozen=True)
class HistoryRound(RoundFacts):
    """A round of a match of a history, as stored (``matches.models.Round``'s columns of the
    same names, with what they tell, ``RoundFacts``): what the API's match shows of it."""

    number: int
    status: str
    trump_seat: int
    tricks_a: int
    tricks_b: int
    bavan: str | None
    bavan_votes: list
    outcome: str | None
    winner: str | None
    wins_awarded: int | None
    shutout_team: str | None
    play: dict | None


ROUND_COLUMNS = tuple(field.name for field in fields(HistoryRound))
"""The columns of ``Round`` a history's rounds are read from."""


@dataclass(frozen=True)
class MatchValue(MatchFacts):
    """A match as stored (``matches.models.Match``'s columns of the same names, with what
    they tell, ``MatchFacts``), with the players of its seats and, when read along, its
    rounds: what the API's match shows of it, in a player's history (:class:`HistoryMatch`)
    and read alone (``matches.details.MatchDetail``)."""

    id: int
    mode: str
    status: str
    target_wins: int
    wins_a: int
    wins_b: int
    winner: str | None
    next_trump_seat: int
    require_play: bool
    season: int | None
    void_reason: str
    voided_at: datetime | None
    external_id: str | None
    client_version: str
    created_at: datetime
    completed_at: datetime | None
    finalized_at: datetime | None
    seats: tuple[int, ...]
    """The player ids of seats 0..3."""
    rounds: tuple[HistoryRound, ...] | None
    """The rounds by number; None when the match was read without them."""

    def seat_player_ids(self) -> list[int]:
        """The player ids of seats 0..3, as ``Match.seat_player_ids`` gives a model's."""
        return list(self.seats)

    def rounds_in_order(self) -> tuple[HistoryRound, ...]:
        """The rounds by number, as ``Match.rounds_in_order`` gives a model's: a value read
        with its rounds only."""
        assert self.rounds is not None, f"match {self.id} was read without its rounds"
        return self.rounds


STORED_COLUMNS = tuple(
    field.name for field in fields(MatchValue) if field.name not in ("seats", "rounds")
)
"""The columns of ``Match`` a match's value is read from."""


@dataclass(frozen=True)
class HistoryMatch(MatchValue):
    """A match of a player's history: the match's value and the player's seat in it, what the
    API's ``/players/{id}/matches/`` and the player's page show of it."""

    history_at: datetime
    """The match's creation time as the player's seat holds it: the history's order."""
    history_seat: int
    """The player's seat (0..3)."""


MATCH_COLUMNS = (*STORED_COLUMNS, "history_at", "history_seat")
"""The columns of ``matches.selectors.player_matches`` (the annotations with them) a history's
matches are read from."""


@dataclass(frozen=True)
class HistoryPage:
    """A page of a history: its matches, newest first, and the cursors of the pages of newer
    and of older matches, None at either end."""

    matches: list[HistoryMatch]
    newer: str | None
    older: str | None


def history_page(
    history: QuerySet[Match], token: str | None, size: int, *, rounds: bool = False
) -> HistoryPage:
    """The page of ``history`` (``matches.selectors.player_matches``, maybe filtered) that the
    cursor ``token`` points at, the newest ``size`` matches without one, with their seats and,
    with ``rounds``, their rounds. Two queries (three with ``rounds``; one when the page is
    empty): the page's matches and one more, which tells whether there is a page beyond it in
    the direction it was read (back the way it came there is a page whenever a cursor led to
    it); then the seats, and the rounds, of the page's matches.

    Raises:
        InvalidCursor: ``token`` is no cursor of a history.
    """
    cursor = None if token is None else Cursor.of(token)
    columns = history.values(*MATCH_COLUMNS)
    if cursor is None:
        rows = list(columns[: size + 1])
    elif cursor.newer:  # read upwards from the cursor's match, through the same index
        tie = Q(history_at=cursor.at, id__lte=cursor.match_id)
        later = columns.filter(Q(history_at__gte=cursor.at)).exclude(tie)
        rows = list(later.order_by(F("history_at").asc(), "id")[: size + 1])
    else:
        tie = Q(history_at=cursor.at, id__gte=cursor.match_id)
        rows = list(columns.filter(Q(history_at__lte=cursor.at)).exclude(tie)[: size + 1])
    beyond = len(rows) > size
    upwards = cursor is not None and cursor.newer
    page = _matches(rows[:size][::-1] if upwards else rows[:size], rounds=rounds)
    newer = _token(page[:1], cursor, newer=True) if (beyond if upwards else cursor) else None
    older = _token(page[-1:], cursor, newer=False) if (upwards or beyond) else None
    return HistoryPage(page, newer, older)


def _matches(rows: list[dict[str, Any]], *, rounds: bool) -> list[HistoryMatch]:
    """The matches of ``rows`` (:data:`MATCH_COLUMNS`), in their order, with their seats and,
    with ``rounds``, their rounds: one query each (none for no rows)."""
    if not rows:
        return []
    ids = [row["id"] for row in rows]
    seats: dict[int, list[int]] = {match_id: [] for match_id in ids}
    by_seat = Seat.objects.filter(match_id__in=ids).order_by("match_id", "seat")
    for match_id, player_id in by_seat.values_list("match_id", "player_id"):
        seats[match_id].append(player_id)
    played: dict[int, list[HistoryRound]] = {match_id: [] for match_id in ids}
    if rounds:
        by_number = Round.objects.filter(match_id__in=ids).order_by("match_id", "number")
        for match_id, *columns in by_number.values_list("match_id", *ROUND_COLUMNS):
            played[match_id].append(HistoryRound(*columns))
    return [
        HistoryMatch(
            **row,
            seats=tuple(seats[row["id"]]),
            rounds=tuple(played[row["id"]]) if rounds else None,
        )
        for row in rows
    ]


def _token(end: list[HistoryMatch], cursor: Cursor | None, *, newer: bool) -> str:
    """The cursor of the page beyond the match ``end`` (one or none) of a page; an empty page
    leads on from the place of its own ``cursor``."""
    if end:
        (match,) = end
        return Cursor(match.history_at, match.id, newer).token()
    assert cursor is not None  # only a cursor can lead past the end of a history
    return Cursor(cursor.at, cursor.match_id, newer).token()

"""The pages of a player's history (API.md "Players": ``/players/{id}/matches/``; "Players'
pages": "My games"), newest first, read by keyset: each page starts where the last one ended
in the order of ``matches.selectors.player_matches`` (``-history_at``, ``-id``, the order of
the index ``seat_history_order``), with no count, so a page deep in a long history costs what
the first one costs. The one place of the paging rules: the API's ``HistoryPagination`` and the
players' page both read their pages here and turn the cursors into their own links.

A cursor is an opaque token naming the match a page starts after (or, for newer matches,
before): :class:`Cursor` writes and reads it; a token that is none of its is a 404.
"""

from __future__ import annotations

import binascii
from base64 import urlsafe_b64decode, urlsafe_b64encode
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db.models import F, Q, QuerySet

from domain.errors import NotFound
from matches.models import Match

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
MAX_ID = 2**63 - 1
"""Match ids are 64-bit: a cursor naming a larger one is none of ours."""
INVALID_CURSOR = "Invalid cursor"
"""The 404's message for a cursor that is none of this module's."""


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
            NotFound: ``token`` is no cursor of this module (404 "Invalid cursor").
        """
        try:
            way, at, match_id = urlsafe_b64decode(token.encode()).decode().split("|")
            moment, pk = datetime.fromisoformat(at), int(match_id)
            if way not in ("n", "o") or moment.tzinfo is None or not 0 < pk <= MAX_ID:
                raise ValueError(token)
            return cls(moment.astimezone(UTC), pk, way == "n")
        except (ValueError, OverflowError, binascii.Error, UnicodeError):
            raise NotFound(INVALID_CURSOR, "cursor") from None


@dataclass(frozen=True)
class HistoryPage:
    """A page of a history: its matches, newest first, and the cursors of the pages of newer
    and of older matches, None at either end."""

    matches: list[Match]
    newer: str | None
    older: str | None


def history_page(history: QuerySet[Match], token: str | None, size: int) -> HistoryPage:
    """The page of ``history`` (``matches.selectors.player_matches``, maybe filtered) that the
    cursor ``token`` points at, the newest ``size`` matches without one. One query: the page's
    matches and one more, which tells whether there is a page beyond it in the direction it
    was read; back the way it came there is a page whenever a cursor led to it.

    Raises:
        NotFound: ``token`` is no cursor (404 "Invalid cursor").
    """
    cursor = None if token is None else Cursor.of(token)
    if cursor is None:
        rows = list(history[: size + 1])
    elif cursor.newer:  # read upwards from the cursor's match, through the same index
        tie = Q(history_at=cursor.at, id__lte=cursor.match_id)
        later = history.filter(Q(history_at__gte=cursor.at)).exclude(tie)
        rows = list(later.order_by(F("history_at").asc(), "id")[: size + 1])
    else:
        tie = Q(history_at=cursor.at, id__gte=cursor.match_id)
        rows = list(history.filter(Q(history_at__lte=cursor.at)).exclude(tie)[: size + 1])
    beyond = len(rows) > size
    page = rows[:size]
    upwards = cursor is not None and cursor.newer
    if upwards:
        page.reverse()
    newer = _token(page[:1], cursor, newer=True) if (beyond if upwards else cursor) else None
    older = _token(page[-1:], cursor, newer=False) if (upwards or beyond) else None
    return HistoryPage(page, newer, older)


def _token(end: list[Match], cursor: Cursor | None, *, newer: bool) -> str:
    """The cursor of the page beyond the match ``end`` (one or none) of a page; an empty page
    leads on from the place of its own ``cursor``."""
    if end:
        (match,) = end
        return Cursor(match.history_at, match.pk, newer).token()  # type: ignore[attr-defined]
    assert cursor is not None  # only a cursor can lead past the end of a history
    return Cursor(cursor.at, cursor.match_id, newer).token()

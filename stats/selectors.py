"""Reads of the "My games" statistics (KORT_RULES §8, §10, §12; API.md "Players", "Seasons").

The §12 reads (:func:`player_partners`, :func:`player_opponents`, :func:`player_versus`,
:func:`player_streaks`) return plain frozen values, never model instances, each read from
the stored figures that the ladder's write path keeps (``stats.services``) in one or two
queries whatever the length of the player's history."""

from __future__ import annotations

import binascii
from base64 import urlsafe_b64decode, urlsafe_b64encode
from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import F, Q, QuerySet
from django.db.models.expressions import OrderBy

from domain.paging import InvalidCursor
from matches.kort.rules import STATS_SIDES
from players.models import Player
from seasons.models import Season
from stats.models import (
    ALL_MODES,
    ALL_SEASONS,
    COUNT_FIELDS,
    OUTCOME_FIELDS,
    ModeStats,
    PairFigures,
    PairSide,
    PlayerStats,
    SeasonStats,
    StatsCounts,
    StreakFigures,
)
from stats.totals import players_now


def player_stats(
    player: Player,
    season: int | None = None,
    mode: str | None = None,
    *,
    current: Season | None = None,
) -> dict:
    """The player's statistics in the API's shape: counts, ``cups``, ``best_cups``,
    ``outcomes`` ``{outcome: {"team": n, "opponents": m}}`` and ``streaks`` (§12, see
    :meth:`PlayerStreaks.as_answer`); over all time, or over the matches of ``season`` (a
    season number), with that season's cups (at its end, or now for the current season) and
    best cups; over both modes, or over ``mode``'s matches only (``"ranked"``, ``"room"``:
    the counts and streaks; the cups are the player's, as without a mode; all time, their totals
    now, ``stats.totals.players_now``: ``current`` is the current season, if the caller has
    it). No match yet (in the season, in the mode) reads zeros."""
    if season is None:
        (now,) = players_now([player], current)
        cups, best_cups = now.cups, now.best_cups
        counts: StatsCounts | None = PlayerStats.objects.filter(player=player).first()
    else:
        row = SeasonStats.objects.filter(player=player, season=season).first()
        cups, best_cups = (0, 0) if row is None else (row.cups, row.best_cups)
        counts = row
    if mode is not None:
        counts = ModeStats.objects.filter(
            player=player, season=_variant(mode, season)[0], mode=mode
        ).first()
    figures = _figures(counts or PlayerStats(player=player), cups=cups, best_cups=best_cups)
    figures["streaks"] = player_streaks(player.pk, mode=mode, season=season).as_answer()
    return figures


def _figures(stats: StatsCounts, *, cups: int, best_cups: int) -> dict:
    figures = {name: getattr(stats, name) for name in COUNT_FIELDS}
    figures["outcomes"] = {
        outcome.value: {
            side: getattr(stats, name) for side, name in zip(STATS_SIDES, names, strict=True)
        }
        for outcome, names in OUTCOME_FIELDS.items()
    }
    figures["cups"] = cups
    figures["best_cups"] = best_cups
    return figures


def season_figures(season: int, player_ids: list[int]) -> dict[int, SeasonStats]:
    """The season's statistics rows of the given players, by player id (one query)."""
    return {
        row.player_id: row
        for row in SeasonStats.objects.filter(season=season, player_id__in=player_ids)
    }


# --- Partners, opponents, streaks and the figures per mode (KORT_RULES §12) -------------------

DEFAULT_PAIR_PAGE = 50
MAX_PAIR_PAGE = 100
MAX_COUNT = 2**31 - 1
"""Counts and ids a cursor may name (larger is none of ours)."""


@dataclass(frozen=True)
class PairPlayer:
    """The other player of a pair, as the tables name them (API.md: ``{"id",
    "display_name"}``; ``is_bot`` for the pages)."""

    id: int
    display_name: str
    is_bot: bool


@dataclass(frozen=True)
class PairRow:
    """One row of a partners or opponents table (API.md "Players"): ``matches`` played with
    (or against) ``player``, ``won`` by the table's player, ``cups`` the sum of the table's
    player's cup changes in them (0 for room matches)."""

    player: PairPlayer
    matches: int
    won: int
    cups: int


@dataclass(frozen=True)
class PairCursor:
    """Where a page of a table starts: after the row (``matches``, ``other`` id) going down
    the table, or before it going up (``up``). :meth:`token` writes it, :meth:`of` reads it."""

    matches: int
    other: int
    up: bool

    def token(self) -> str:
        """The cursor as a query parameter's value (URL-safe)."""
        text = f"{'u' if self.up else 'd'}|{self.matches}|{self.other}"
        return urlsafe_b64encode(text.encode()).decode()

    @classmethod
    def of(cls, token: str) -> PairCursor:
        """The cursor of ``token``.

        Raises:
            InvalidCursor: ``token`` is no cursor of a table (a 400 on ``cursor``).
        """
        try:
            way, matches, other = urlsafe_b64decode(token.encode()).decode().split("|")
            count, pk = int(matches), int(other)
            if way not in ("u", "d") or not (0 < count <= MAX_COUNT and 0 < pk <= MAX_COUNT):
                raise ValueError(token)
            return cls(count, pk, way == "u")
        except (ValueError, binascii.Error, UnicodeError):
            raise InvalidCursor() from None


@dataclass(frozen=True)
class PairPage:
    """A page of a partners or opponents table, most matches first, then by the other
    player's id: its ``rows`` and the cursor tokens of the page below (``next``) and above
    (``previous``), None at either end."""

    rows: tuple[PairRow, ...]
    next: str | None
    previous: str | None


@dataclass(frozen=True)
class PairCount:
    """Matches played, and won by the first player, in a :class:`Versus`."""

    matches: int
    won: int


@dataclass(frozen=True)
class Versus:
    """Two players' matches (KORT_RULES §12; API.md ``/versus/{other}/``): ``together`` in
    the same team (the API's ``"with"``) and ``against`` each other; ``won`` by the first."""

    together: PairCount
    against: PairCount


@dataclass(frozen=True)
class StreakRun:
    """One kind of streak (KORT_RULES §12): the ``current`` run (0 when the latest match was
    of the other kind) and the ``best`` ever."""

    current: int
    best: int


@dataclass(frozen=True)
class PlayerStreaks:
    """A player's win and loss streaks (KORT_RULES §12; API.md ``"streaks"``)."""

    win: StreakRun
    loss: StreakRun

    def as_answer(self) -> dict[str, dict[str, int]]:
        """``{"win": {"current", "best"}, "loss": {...}}``, the API's shape."""
        return {
            "win": {"current": self.win.current, "best": self.win.best},
            "loss": {"current": self.loss.current, "best": self.loss.best},
        }


def _variant(mode: str | None, season: int | None) -> tuple[int, str]:
    """The stored rows' ``(season, mode)`` for a read over ``mode`` (None: both) and
    ``season`` (None: all time)."""
    return (ALL_SEASONS if season is None else season, ALL_MODES if mode is None else str(mode))


def player_partners(
    player_id: int,
    *,
    mode: str | None = None,
    season: int | None = None,
    cursor: str | None = None,
    size: int = DEFAULT_PAIR_PAGE,
) -> PairPage:
    """The players ``player_id`` sat with (KORT_RULES §12), most matches first, then by id:
    a page of ``size`` rows from ``cursor`` (a token of :attr:`PairPage.next` or
    ``previous``; None: the top), over ``mode`` (``"ranked"``, ``"room"``; None: both) and
    ``season`` (a season number; None: all time). Two queries at most, at any depth (each a
    range of the index ``pair_table_order`` read in order; no count).

    Raises:
        InvalidCursor: ``cursor`` is no cursor of a table (a 400 on ``cursor``).
    """
    return pair_page(
        player_id, PairSide.PARTNER, mode=mode, season=season, cursor=cursor, size=size
    )


def player_opponents(
    player_id: int,
    *,
    mode: str | None = None,
    season: int | None = None,
    cursor: str | None = None,
    size: int = DEFAULT_PAIR_PAGE,
) -> PairPage:
    """The players ``player_id`` sat against (KORT_RULES §12), as :func:`player_partners`
    (``won``: the matches ``player_id`` won against them)."""
    return pair_page(
        player_id, PairSide.OPPONENT, mode=mode, season=season, cursor=cursor, size=size
    )


DOWN = (F("matches").desc(), "other_id")
UP = ("matches", F("other_id").desc())
"""The tables' order (most matches first, then by id), and back up it."""


def pair_page(
    player_id: int,
    side: PairSide,
    *,
    mode: str | None,
    season: int | None,
    cursor: str | None,
    size: int,
) -> PairPage:
    """A page of the table of ``side`` (see :func:`player_partners`)."""
    at = None if cursor is None else PairCursor.of(cursor)
    variant, kind = _variant(mode, season)
    rows = PairFigures.objects.filter(
        player_id=player_id, side=side, season=variant, mode=kind, matches__gt=0
    )
    if at is None:
        values = _pair_values(rows, DOWN, size + 1)
    else:
        # Two ranges of the index, each read in its order from the cursor's place: the rest
        # of the cursor's count, then the counts beyond it (an OR of the two would be a
        # filter over every row before the place, a walk as long as the page is deep).
        tie, beyond_tie = (
            (Q(other_id__lt=at.other), Q(matches__gt=at.matches))
            if at.up
            else (Q(other_id__gt=at.other), Q(matches__lt=at.matches))
        )
        order = UP if at.up else DOWN
        values = _pair_values(rows.filter(tie, matches=at.matches), order, size + 1)
        if len(values) <= size:
            values += _pair_values(rows.filter(beyond_tie), order, size + 1 - len(values))
    beyond = len(values) > size
    values = values[:size]
    up = at is not None and at.up
    if up:
        values.reverse()
    page = tuple(
        PairRow(PairPlayer(other, name, bot), matches, won, cups)
        for matches, won, cups, other, name, bot in values
    )
    below = up or beyond
    above = beyond if up else at is not None
    return PairPage(
        page,
        _pair_token(page[-1:], at, up=False) if below else None,
        _pair_token(page[:1], at, up=True) if above else None,
    )


def _pair_values(
    rows: QuerySet[PairFigures], order: Sequence[str | OrderBy], limit: int
) -> list[tuple[int, int, int, int, str, bool]]:
    """The first ``limit`` of ``rows`` in ``order``, each ``(matches, won, cups, other id,
    other's display name, other is a bot)``, in one query: the rows picked in the table's index
    first (a subquery with the limit), then joined to their players by key. (Planned as one
    join, a page deep in the table walked the players' key from the first id to the cursor's.)
    """
    picked = rows.order_by(*order).values("pk")[:limit]
    columns = ("matches", "won", "cups", "other_id", "other__display_name", "other__is_bot")
    return list(PairFigures.objects.filter(pk__in=picked).order_by(*order).values_list(*columns))


def _pair_token(end: tuple[PairRow, ...], at: PairCursor | None, *, up: bool) -> str:
    """The cursor of the page beyond the row ``end`` (one or none); an empty page leads on
    from its own cursor's place."""
    if end:
        (row,) = end
        return PairCursor(row.matches, row.player.id, up).token()
    assert at is not None  # only a cursor can lead past the end of a table
    return PairCursor(at.matches, at.other, up).token()


def player_versus(
    player_id: int, other_id: int, *, mode: str | None = None, season: int | None = None
) -> Versus:
    """The matches of ``player_id`` with and against ``other_id`` (KORT_RULES §12), over
    ``mode`` and ``season`` as :func:`player_partners`; ``won`` by ``player_id``. One query."""
    variant, kind = _variant(mode, season)
    rows = PairFigures.objects.filter(
        player_id=player_id, side__in=list(PairSide), season=variant, mode=kind, other_id=other_id
    )  # every column of the unique key given, so one index lookup per side
    counts = {side: PairCount(0, 0) for side in PairSide}
    for side, matches, won in rows.values_list("side", "matches", "won"):
        counts[PairSide(side)] = PairCount(matches, won)
    return Versus(together=counts[PairSide.PARTNER], against=counts[PairSide.OPPONENT])


def player_streaks(
    player_id: int, *, mode: str | None = None, season: int | None = None
) -> PlayerStreaks:
    """The win and loss streaks of ``player_id`` (KORT_RULES §12) over ``mode`` and
    ``season`` as :func:`player_partners`: zeros before their first match. One query."""
    variant, kind = _variant(mode, season)
    row = StreakFigures.objects.filter(player_id=player_id, season=variant, mode=kind).first()
    if row is None:
        return PlayerStreaks(StreakRun(0, 0), StreakRun(0, 0))
    return PlayerStreaks(
        StreakRun(row.win_current, row.win_best), StreakRun(row.loss_current, row.loss_best)
    )

"""Reads of the ladder: the leaderboard and ranks (API.md "Leaderboard", KORT_RULES §10).

Order: ``players.models.LEADERBOARD_ORDER`` (cups descending, then who reached their total
earlier, then id), over the board of a season (``ranking.board.board_players``; the current
season unless one is named). Ranks are 1, 2, 3, ... with no shared ranks, the same in every
endpoint: every rank is 1 + the players ahead, counted from the board's counts
(``ranking.board``) plus the ties ahead in the index, and every row is numbered by
:func:`ranked`. Pages at any offset start from the counts, so no read scans the board.

A read of several statements (a page: the counts, then the rows; a player: their row, then
their rank) runs in one snapshot (:func:`one_snapshot`): a change that commits meanwhile (a
finalized match, a season's opening with its reset pending) is seen by all of its statements
or by none, so every answer is the board before the change or after it. A player whose row the
pending reset has not reached yet is read as the reset makes them (:func:`players_ranked`,
``stats.totals``); they are on no board of the new season until a change of theirs, which
writes the reset first.

When the counts fail a check (``BoardUnreliable``) the reads count the players instead: the
same answers, at the cost of a scan, with a warning in the log until ``manage.py
rebuild_ladder --fix`` rebuilds the counts.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from django.db import connections, router, transaction
from django.db.models import F, Func, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from players.models import LEADERBOARD_ORDER, Player
from players.usernames import username_key
from ranking.board import (
    BoardUnreliable,
    CupsGroup,
    board_players,
    board_total,
    cups_groups,
    current_season_number,
    group_at,
    is_on_board,
)
from ranking.ladder import ladder_reset_player
from ranking.models import CupChange, CupKind, SeasonEnd, SeasonStanding
from seasons.models import Season, SeasonStatus
from seasons.selectors import current_season
from stats.models import SeasonStats
from stats.selectors import season_figures
from stats.totals import players_now

MAX_RADIUS = 50
logger = logging.getLogger(__name__)


@contextmanager
def one_snapshot() -> Iterator[None]:
    """Run the reads inside in one snapshot of the database the players are read from: on
    PostgreSQL a ``REPEATABLE READ`` transaction (every statement sees the same committed
    state), elsewhere a transaction (SQLite reads one state per transaction). Inside a
    transaction already, the caller's transaction is the snapshot it has."""
    alias = router.db_for_read(Player)
    connection = connections[alias]
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic(using=alias):
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


class BoardPlayer(NamedTuple):
    """Who a board row is, as plain values: what the API and the pages show of the player,
    with their total on the board the row is of (now; at the end of a finalized season)."""

    id: int
    username: str
    display_name: str
    cups: int


def board_players_of(rows: QuerySet[Player]) -> list[BoardPlayer]:
    """The rows of ``rows`` (in their order) as plain :class:`BoardPlayer` values."""
    return [BoardPlayer(*values) for values in rows.values_list(*BoardPlayer._fields)]


class RankedPlayer(NamedTuple):
    """A leaderboard row: the player (plain values) and their 1-based rank."""

    rank: int
    player: BoardPlayer


@dataclass(frozen=True)
class BoardPage:
    """A page of a board: its rows in order and how many players the whole board holds."""

    count: int
    rows: list[RankedPlayer]


def ranked(rows: Sequence[BoardPlayer], ahead: int) -> list[RankedPlayer]:
    """Rank consecutive leaderboard rows, the first of which has ``ahead`` players before it:
    a rank is 1 + the number of players ahead, so no two players share one."""
    return [RankedPlayer(rank, player) for rank, player in enumerate(rows, start=ahead + 1)]


def _season(season: int | None) -> int:
    return current_season_number() if season is None else season


def _distrusted(season: int, error: BoardUnreliable) -> None:
    logger.warning(
        "the leaderboard counts of season %s fail a check (%s): counting players instead; "
        "run `manage.py rebuild_ladder --fix --season %s`",
        season,
        error,
        season,
    )


def leaderboard_queryset(season: int | None = None) -> QuerySet[Player]:
    """The players on the board of ``season`` (default: the current season), in leaderboard
    order. For filtering and short slices; pages and ranks at depth read :func:`board_page`."""
    return board_players(_season(season))


def board_count(season: int | None = None) -> int:
    """The number of players on the board of ``season`` (default: the current season)."""
    season = _season(season)
    try:
        return board_total(season)
    except BoardUnreliable as error:
        _distrusted(season, error)
        return board_players(season).count()


def player_rank(player: Player, season: int | None = None) -> int | None:
    """The player's 1-based rank on the board of ``season`` (default: the current season), or
    None when they are not on it."""
    return ranks_of([player], season)[player.pk]


def players_ranked(players: Sequence[Player]) -> tuple[list[Player], dict[int, int | None]]:
    """The players as they are now (``stats.totals.players_now``: with the current season's
    reset where their row does not have it yet) and ``{player id: rank or None}`` on the
    current board (:func:`ranks_of`): what the API shows of a player or a page of players. The
    current season is read once for both."""
    season = current_season()
    now = players_now(players, season)
    return now, ranks_of(now, season.number)


def ranks_of(players: Sequence[Player], season: int | None = None) -> dict[int, int | None]:
    """``{player id: rank or None}`` for a page of players, in three queries whatever their
    number: the counts of their totals, the ties ahead of each, and nothing per player."""
    season = _season(season)
    ranks: dict[int, int | None] = {player.pk: None for player in players}
    on_board = [player for player in players if is_on_board(player, season)]
    if not on_board:
        return ranks
    try:
        groups = cups_groups(season, (player.cups for player in on_board))
        ties = _ties_ahead(season, on_board)
        for player in on_board:
            ranks[player.pk] = 1 + _ahead_in(groups[player.cups], ties[player.pk])
    except BoardUnreliable as error:
        _distrusted(season, error)
        for player in on_board:
            ranks[player.pk] = 1 + board_players(season).filter(_ahead_of(player)).count()
    return ranks


def _ahead_in(group: CupsGroup, ties: int) -> int:
    """The players ahead of one with ``ties`` players ahead of them in their ``group``."""
    if ties >= group.players:
        raise BoardUnreliable(
            f"{ties + 1} players found on {group.cups} cups, {group.players} counted"
        )
    return group.ahead + ties


def _ties_ahead(season: int, players: Sequence[Player]) -> dict[int, int]:
    """``{player id: players of the board with the same cups ahead of them}``, in one query:
    per player a count over the range of the index that holds their total and earlier
    times (KORT_RULES §10 tie-break: the earlier total, then the lower id)."""
    at = OuterRef("cups_changed_at")
    ahead = (
        board_players(season)
        .filter(cups=OuterRef("cups"), cups_changed_at__lte=at)
        .filter(Q(cups_changed_at__lt=at) | Q(id__lt=OuterRef("id")))
        .order_by()
        .annotate(n=Func(F("id"), function="COUNT"))
        .values("n")
    )
    counted = Player.objects.filter(pk__in=[player.pk for player in players]).annotate(
        ahead=Coalesce(Subquery(ahead, output_field=IntegerField()), 0)
    )
    return dict(counted.values_list("pk", "ahead"))


def board_page(offset: int, limit: int, season: int | None = None) -> BoardPage:
    """The board's rows ``offset`` to ``offset + limit - 1`` (0-based) with their ranks, and
    the board's size. The counts give the total holding the row at ``offset`` and how far into
    its ties it is; the rows are read from there through the index, so a page deep in the
    board costs what the first page costs."""
    season = _season(season)
    try:
        group, count = group_at(season, offset)
        rows = [] if group is None or limit == 0 else _rows_from(season, group, offset, limit)
    except BoardUnreliable as error:
        _distrusted(season, error)
        count = board_players(season).count()
        page = board_players(season)[offset : offset + limit]
        rows = board_players_of(page) if offset < count else []
    return BoardPage(count, ranked(rows, offset))


def _rows_from(season: int, group: CupsGroup, offset: int, limit: int) -> list[BoardPlayer]:
    """Up to ``limit`` rows from 0-based ``offset``, which falls in ``group``: the rest of the
    group from the player at that place in its ties, then the lower totals.

    Raises:
        BoardUnreliable: the group does not hold the number of players counted.
    """
    players = board_players(season)
    tied = players.filter(cups=group.cups)
    skip = offset - group.ahead
    if skip:
        # The place in the ties: a count over the index alone, within one total.
        first = tied.values_list("cups_changed_at", "id")[skip : skip + 1]
        if not first:
            raise BoardUnreliable(f"fewer players on {group.cups} cups than counted")
        ((at, first_id),) = first
        tied = tied.filter(cups_changed_at__gte=at).filter(
            Q(cups_changed_at__gt=at) | Q(id__gte=first_id)
        )
    rows = board_players_of(tied[:limit])
    expected = min(limit, group.players - skip)
    if len(rows) != expected:
        raise BoardUnreliable(f"{len(rows)} rows read on {group.cups} cups, {expected} counted")
    if len(rows) < limit:
        rows += board_players_of(players.filter(cups__lt=group.cups)[: limit - len(rows)])
    return rows


def leaderboard_around(
    player: Player, radius: int, season: int | None = None
) -> list[RankedPlayer] | None:
    """The rows from ``radius`` above the player to ``radius`` below (fewer at the edges), or
    None when the player is not on the board of ``season`` (default: the current season)."""
    rank = player_rank(player, season)
    if rank is None:
        return None
    ahead = max(0, rank - 1 - radius)
    return board_page(ahead, rank + radius - ahead, season).rows


def _ahead_of(player: Player) -> Q:
    """Players before ``player`` in ``LEADERBOARD_ORDER``."""
    return _compared(BoardKey.of(player), before=True)


class BoardKey(NamedTuple):
    """Where a row stands in ``LEADERBOARD_ORDER``: a player's cups, last cup change and id."""

    cups: int
    cups_changed_at: datetime | None
    id: int

    @classmethod
    def of(cls, player: Player) -> BoardKey:
        return cls(player.cups, player.cups_changed_at, player.pk)


def leaderboard_after(after: BoardKey | None, limit: int) -> list[Player]:
    """Up to ``limit`` rows of the current board that follow ``after`` in its order (from the
    top when None): the board read in batches, each costing about what the first does."""
    board = leaderboard_queryset()
    if after is not None:
        board = board.filter(_behind(after))
    return list(board[:limit])


def _behind(key: BoardKey) -> Q:
    """Rows after ``key`` in ``LEADERBOARD_ORDER``."""
    return _compared(key, before=False)


def _compared(key: BoardKey, *, before: bool) -> Q:
    """Rows before (or after) ``key`` in ``LEADERBOARD_ORDER``: ``a > x OR (a = x AND (b > y
    OR ...))``, and the same bound on the first column alone (``a >= x``), which changes no
    answer but lets the database walk the index from ``x`` instead of filtering the whole
    board (a keyset walk whose batches cost the same at every depth)."""
    found, tied = Q(), Q()
    for name in LEADERBOARD_ORDER:
        field = name.removeprefix("-")
        descending = name.startswith("-")
        lookup = "gt" if descending == before else "lt"
        value = getattr(key, field)
        found |= tied & Q(**{f"{field}__{lookup}": value})
        tied &= Q(**{field: value})
    first = LEADERBOARD_ORDER[0]
    bound = "gte" if first.startswith("-") == before else "lte"
    field = first.removeprefix("-")
    return Q(**{f"{field}__{bound}": getattr(key, field)}) & found


def player_named(username: str) -> Player | None:
    """The player whose username is ``username`` ignoring case (usernames are unique so), or
    None. Looked up through the unique index on the case-folded username
    (``players.usernames.username_key``)."""
    return Player.objects.filter(username_key=username_key(username)).first()


def name_begins(text: str) -> Q:
    """The condition of a player whose username or display name begins with ``text``,
    ignoring case in every script (both case-folded as usernames are). Each half is answered
    from its prefix index (``players.models.NAME_PREFIX_OPCLASS``), so a search stays an index
    read however many players there are."""
    key = username_key(text)
    return Q(username_key__startswith=key) | Q(display_name_key__startswith=key)


def players_beginning(text: str) -> QuerySet[Player]:
    """The players of :func:`name_begins`, by folded username."""
    return Player.objects.filter(name_begins(text)).order_by("username_key", "id")


def players_found(text: str, limit: int) -> list[Player]:
    """The first ``limit`` of :func:`players_beginning`."""
    return list(players_beginning(text)[:limit])


@dataclass(frozen=True)
class LedgerEntry:
    """One cup change of a player (KORT_RULES §7), as the API's ``/players/{id}/cups/`` shows
    it: when, by how much, the total right after it (``cups_after``), its ``kind`` (a match,
    a season's reset, a void), the match it belongs to (None for a reset) and its season."""

    at: datetime
    delta: int
    cups_after: int
    match_id: int | None
    kind: str = CupKind.MATCH
    season: int | None = None


def cups_ledger(player: Player, limit: int, current: Season | None = None) -> list[LedgerEntry]:
    """The player's latest ``limit`` cup changes, newest first: the first rows of the API's
    ledger (:func:`player_ledger`; ``current``: the current season, if the caller has it), one
    query of ``limit`` rows, however long the ledger."""
    return [
        LedgerEntry(
            change.created_at,
            change.delta,
            change.cups_after,
            change.match_id,
            change.kind,
            change.season,
        )
        for change in player_ledger(player, current)[:limit]
    ]


def matches_cups(match_ids: Iterable[int]) -> dict[int, dict[int, int]]:
    """The cups each of the matches gave (KORT_RULES §7; API.md "Matches": ``cups``):
    ``{match id: {player id: delta}}``, from the ledger's rows of kind ``match`` (a void adds
    rows of kind ``void`` beside them, §11, and the match still shows what it gave). The players
    of a match come in the ledger's order, newest first; a match with no such rows (not
    finalized, a room match) is left out. One query, whatever the number of matches."""
    rows = CupChange.objects.filter(match_id__in=set(match_ids), kind=CupKind.MATCH)
    cups: dict[int, dict[int, int]] = {}
    for match_id, player_id, delta in rows.order_by("-created_at", "-id").values_list(
        "match_id", "player_id", "delta"
    ):
        cups.setdefault(match_id, {})[player_id] = delta
    return cups


# --- seasons ------------------------------------------------------------------------------


class SeasonRow(NamedTuple):
    """A row of a season's board: a ranked player with their best cups and ranked matches of
    the season (API.md "Seasons"); ``cups`` at the season's end, or now."""

    rank: int
    player: BoardPlayer
    cups: int
    best_cups: int
    matches_played: int


def season_board(season: Season, offset: int, limit: int) -> tuple[list[SeasonRow], int]:
    """A page of ``season``'s board and the board's length: the frozen final standings of a
    finalized season, read by rank; the live board of the current one, with each row's season
    figures (one query for the page)."""
    if season.status == SeasonStatus.FINALIZED:
        standings = SeasonStanding.objects.filter(
            season=season, rank__gt=offset, rank__lte=offset + limit
        ).order_by("rank")
        read = standings.values_list(
            "rank",
            "player_id",
            "player__username",
            "player__display_name",
            "cups",
            "best_cups",
            "matches_played",
        )
        rows = [
            SeasonRow(rank, BoardPlayer(player, username, name, cups), cups, best, played)
            for rank, player, username, name, cups, best, played in read
        ]
        return rows, SeasonEnd.objects.get(season=season).standings
    page = board_page(offset, limit, season.number)
    figures = season_figures(season.number, [row.player.id for row in page.rows])
    rows = [
        SeasonRow(
            rank,
            player,
            player.cups,
            figures[player.id].best_cups,
            figures[player.id].ranked_played,
        )
        for rank, player in page.rows
    ]
    return rows, page.count


class PlayerSeason(NamedTuple):
    """One season of a player (API.md ``/players/{id}/seasons/``): ``rank`` final, live for the
    current season, None when off the board; ``cups`` at the end, or now."""

    season: int
    rank: int | None
    cups: int
    best_cups: int
    matches_played: int
    matches_won: int


def player_seasons(player: Player) -> list[PlayerSeason]:
    """The seasons in which the player played a ranked match, newest first. A finalized season
    reads the player's frozen standing, if they have one; otherwise the season's statistics
    (a void may have taken a season's only ranked match back out)."""
    standings = {row.season_id: row for row in SeasonStanding.objects.filter(player=player)}
    stats = {row.season: row for row in SeasonStats.objects.filter(player=player)}
    current = current_season()
    rows = []
    for number in sorted(standings.keys() | stats.keys(), reverse=True):
        standing = standings.get(number)
        if standing is not None:
            rows.append(
                PlayerSeason(
                    number,
                    standing.rank,
                    standing.cups,
                    standing.best_cups,
                    standing.matches_played,
                    standing.matches_won,
                )
            )
            continue
        row = stats[number]
        if row.ranked_played == 0:
            continue
        rank = player_rank(player) if number == current.number else None
        rows.append(
            PlayerSeason(number, rank, row.cups, row.best_cups, row.ranked_played, row.ranked_won)
        )
    return rows


def player_ledger(player: Player, current: Season | None = None) -> QuerySet[CupChange]:
    """The player's cups ledger, newest first (API.md ``/players/{id}/cups/``): the stored
    rows, once the current season's soft reset (``current``: the current season, if the caller
    has it) is written to the player's row if it was still to come
    (``ranking.ladder.ladder_reset_player``). So the rows sum to the total every other read
    shows, and the reset's row is the one stored for good: its stamp and its place in the
    pages do not change once the season's end reaches the player. The write happens once per
    player and season, on the primary; the reads after it in the request go there too
    (``kort_site.db_router``: a request that wrote reads the primary)."""
    ladder_reset_player(player, current or current_season())
    return CupChange.objects.filter(player=player).order_by("-created_at", "-id")

"""The ladder's one write path (KORT_RULES §7, §8, §10, §11; API.md "Leaderboard").

The ladder's state moves together: a player's ``cups``, ``best_cups``, ``board_season`` and
``reset_season`` (with ``cups_changed_at``, the leaderboard's tie-break), each ledger row's
``cups_after``, the season statistics' ``cups`` and ``best_cups`` (and the counts of "My
games", all time and per season), the board's counts and its total (``ranking.board``).
Whoever decides a change of the ladder (a finalized match, a void, a ban) computes it as a
value, a :class:`LadderChange`, from the pure rules and what it has read; :func:`ladder_apply`
applies it in the caller's transaction, writing first the pending season reset of those of its
players whose rows do not have it yet. The season's end writes the reset to every other player
with :func:`ladder_reset` and drops the ended season's board with :func:`ladder_close`.
``manage.py rebuild_ladder --fix`` hands its repair to :func:`ladder_repair`. Nothing outside
this module writes the players' cup fields, the ledger, the season statistics' cups or the
board's counts.

Lock order, the same for every writer (so no two can deadlock): the match rows first (in id
order), then the current season's row (shared, voids only), then the players' rows in id order
(:func:`players_locked`), then the statistics rows (in player id order, by the statements of
``stats.services``: all time, the season's, the mode's), then the §12 rows of the match's
human players, the pair rows (in the order of their unique key, player first) and then the
streak rows (player, season, mode), then the board's total and its counts in increasing cups
(``ranking.board.board_moves``). The writes from the ledger to the board's counts are one
sequence of statements run in that order (``bulk.updates.run``: one round trip on
PostgreSQL); the streak rows are read before it, without a lock, and the board's total row
is claimed before it (``ranking.board.board_claim``), which locks nothing but a total row it
makes: the season's first move, which builds the counts after the sequence, while a
concurrent writer, holding only its own players' rows, waits for it. The §12 rows are keyed by a
human player of the change, whose player row the writer holds: two writers never wait on
them for each other, since any two changes that share such a row already queue on that
player's row.

The figures of KORT_RULES §12 are lines of the same change (``LadderChange.table``): a
finalized match counts in its players' partners, opponents and streaks, its void takes it back
out, in the same transaction as its cups (``stats.services.MatchTable``; how the streaks stay
right under a void in the middle of a run is told there).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.db import connections, router
from django.db.models import QuerySet

from bulk.sql import id_in
from bulk.updates import ByKey, FieldValue, Insert, Statement, Update, Upsert, run, update_values
from matches.kort.rules import StatsLine
from players.models import BOARD_ELIGIBLE, Player
from ranking.board import (
    board_build,
    board_claim,
    board_move,
    board_moves,
    board_retire,
    is_on_board,
)
from ranking.models import CupChange, CupKind
from seasons.selectors import current_season
from stats.services import MatchTable, SeasonCups, stats_follow, stats_replace
from stats.totals import PendingReset, pending_reset, reset_due

UPDATE_BATCH = 1000
"""Players whose totals one statement writes (a season's reset moves thousands)."""


class BoardStep(enum.Enum):
    """What a change does to a player's place on the current season's board (§10, §11)."""

    KEEP = "keep"
    """Nothing: they stay on it (with their new total) if they were on it, off it if not."""
    JOIN = "join"
    """A ranked match of the season counts for them: they are on it (unless banned)."""
    LEAVE = "leave"
    """No ranked match of the season counts for them any more: they are off it."""


@dataclass(frozen=True)
class LadderChange:
    """One change of the ladder, as a value: what :func:`ladder_apply` writes.

    - ``cups``: each player's cup delta by player id (one ledger row each, of ``kind``, in
      ``season``, for ``match_id``); empty for a change that moves no cups.
    - ``stats``: the "My games" lines to add, each with its players (a team's line, or its
      negation for a void, §8, §11), to all-time statistics and those of ``stats_season``;
      ``ranked`` counts them in the season's ranked matches too.
    - ``board``: each player's :class:`BoardStep` on the current season's board (missing:
      ``KEEP``).
    - ``banned``: the players' ban flag after the change (None: unchanged).
    - ``table``: the match as KORT_RULES §12 counts it (partners, opponents, streaks), or
      taken back out (a void, ``-table``); None for a change of no match.
    """

    kind: CupKind | None = None
    season: int | None = None
    match_id: int | None = None
    cups: Mapping[int, int] = field(default_factory=dict)
    stats: Sequence[tuple[StatsLine, Sequence[int]]] = ()
    stats_season: int | None = None
    ranked: bool = False
    board: Mapping[int, BoardStep] = field(default_factory=dict)
    banned: bool | None = None
    table: MatchTable | None = None

    @property
    def player_ids(self) -> list[int]:
        """Every player the change touches, in the lock order."""
        ids = {*self.cups, *self.board, *(pid for _, ids in self.stats for pid in ids)}
        return sorted(ids)


def players_locked(player_ids: Iterable[int]) -> list[Player]:
    """The players' rows, locked in id order (so concurrent writers cannot deadlock) and read
    once locked, so their totals are current.

    The lock is ``FOR NO KEY UPDATE`` (PostgreSQL; SQLite locks the whole database): it keeps
    other writers of the rows out but lets rows that refer to the players be written (a new
    match's seats, tokens), whose foreign keys take ``KEY SHARE`` locks; with ``FOR UPDATE``
    a match seating the players would wait, and could deadlock with the holder. A plain
    statement: every finalization makes it."""
    ids = sorted(set(player_ids))
    if not ids:
        return []
    connection = connections[router.db_for_write(Player)]
    table = connection.ops.quote_name(Player._meta.db_table)
    lock = " FOR NO KEY UPDATE" if connection.features.has_select_for_update else ""
    where, params = id_in("id", ids, connection.vendor)
    query = f"SELECT * FROM {table} WHERE {where} ORDER BY id{lock}"
    return list(Player.objects.raw(query, params).using(connection.alias))


def ladder_apply(
    change: LadderChange, players: Sequence[Player], at: datetime, *, then: Sequence[Statement] = ()
) -> None:
    """Apply ``change`` to ``players`` (their rows locked by :func:`players_locked`, every
    player of ``change.player_ids`` and no other), stamped ``at``, in the caller's transaction:
    the ledger rows and the players' totals, the season statistics and the figures of §12,
    the ban flags, who is on the current season's board and its counts, all written together
    (``bulk.updates.run``: one round trip on PostgreSQL), with the caller's own writes
    ``then`` last (a finalized match's time). The ``Player`` objects follow.

    ``best_cups`` is the highest total ever reached (§10): a change that lifts the total above
    it lifts it, and nothing lowers it (a void is a new change, stamped now, not a rewrite of
    the past, §11). A match's cups and a void also move the players' cups of ``season``
    (statistics), whose rows open with the totals before the change. A player's pending season
    reset (:func:`_resets_due`) is written first and moves only their totals, which the new
    season's rows start from.
    """
    season = current_season()
    statements = _resets_due(players, pending_reset(season))
    moves_board = bool(change.cups or change.board) or change.banned is not None
    board_season = season.number if moves_board else None
    before = {}
    if board_season is not None:
        before = {p.pk: p.cups if is_on_board(p, board_season) else None for p in players}
    totals = {p.pk: p.cups for p in players}
    if change.cups:
        statements += _cups_moved(change, players, at)
    statements += stats_follow(
        SeasonCups(change.season, totals, {p.pk: p.cups for p in players if p.pk in change.cups}),
        change.stats,
        season=change.stats_season,
        ranked=change.ranked,
        table=change.table,
    )
    if change.banned is not None:
        statements += _players_set(players, "is_banned", change.banned)
    built = False
    if board_season is not None:
        statements += _board_steps(board_season, players, change.board)
        built = board_claim(board_season)
        if not built:
            statements += board_moves(
                board_season,
                [(before[p.pk], p.cups if is_on_board(p, board_season) else None) for p in players],
            )
    run([*statements, *then])
    if built:
        assert board_season is not None
        board_build(board_season)


def _resets_due(players: Sequence[Player], pending: PendingReset | None) -> list[Statement]:
    """The soft reset that opened the current season (§10) for those of ``players`` whose rows
    do not have it yet (``stats.totals.reset_due``): their ``season_reset`` ledger rows and
    totals, stamped with the reset's moment, as the season's end writes them to every other
    player (:func:`ladder_reset`). The ``Player`` objects follow."""
    due = {}
    for player in players:
        after = reset_due(player, pending)
        if after is not None:
            due[player.pk] = after - player.cups
    if not due:
        return []
    assert pending is not None  # reset_due finds none without a pending reset
    reset = LadderChange(kind=CupKind.SEASON_RESET, season=pending.season, cups=due)
    moved = [player for player in players if player.pk in due]
    return [
        *_cups_moved(reset, moved, pending.at),
        *_players_set(moved, "reset_season", pending.season),
    ]


def _cups_moved(change: LadderChange, players: Sequence[Player], at: datetime) -> list[Statement]:
    """The ledger rows of ``change.cups`` and the players' new totals."""
    moved = [player for player in players if player.pk in change.cups]
    rows = []
    for player in moved:
        player.cups += change.cups[player.pk]
        player.best_cups = max(player.best_cups, player.cups)
        player.cups_changed_at = at
        rows.append(
            {
                "kind": change.kind,
                "match_id": change.match_id,
                "player_id": player.pk,
                "season": change.season,
                "delta": change.cups[player.pk],
                "cups_after": player.cups,
                "created_at": at,
            }
        )
    statements: list[Statement] = [Insert(CupChange, rows)]
    for start in range(0, len(moved), UPDATE_BATCH):
        batch = moved[start : start + UPDATE_BATCH]
        statements.append(
            Update(
                Player,
                "id",
                [player.pk for player in batch],
                {
                    "cups": ByKey("id", {player.pk: player.cups for player in batch}),
                    "best_cups": ByKey("id", {player.pk: player.best_cups for player in batch}),
                    "cups_changed_at": FieldValue(at),
                },
            )
        )
    return statements


def _players_set(players: Sequence[Player], name: str, value: object) -> list[Statement]:
    """Set the field ``name`` of ``players`` to ``value`` where it differs."""
    changed = [player for player in players if getattr(player, name) != value]
    for player in changed:
        setattr(player, name, value)
    return [Update(Player, "id", [p.pk for p in changed], {name: FieldValue(value)})]


def _board_steps(
    season: int, players: Sequence[Player], steps: Mapping[int, BoardStep]
) -> list[Statement]:
    """Each player's step on the board of ``season`` (``board_season``)."""
    joined = [p for p in players if steps.get(p.pk) is BoardStep.JOIN]
    left = [p for p in players if steps.get(p.pk) is BoardStep.LEAVE and p.board_season == season]
    return [
        *_players_set(joined, "board_season", season),
        *_players_set(left, "board_season", None),
    ]


RESET_SQL = "CASE WHEN {cups} < 0 THEN 0 ELSE %(floor)s + ({cups} - %(floor)s) / 2 END"
"""A total after the soft reset with floor T (KORT_RULES §10), for a total that it changes
(``cups < 0`` or ``cups > T``): the numbers of ``matches.kort.rules.season_reset_cups`` (the
excess is positive, so the integer division rounds down)."""


def ladder_reset(pending: PendingReset, after_id: int, limit: int) -> tuple[int | None, int]:
    """Write the soft reset that opened season ``pending.season`` (KORT_RULES §10) to the
    next ``limit`` players by id after ``after_id``, set-based, in the caller's transaction:
    each human player of them whose total it changes and whose row does not have it yet
    (``stats.totals.reset_due``) gets a ``season_reset`` ledger row (delta ``new - cups``)
    and the new total, stamped ``pending.at`` (``best_cups`` stays: a reset only lowers a
    total, or lifts a negative one to 0). Returns the last player id of the batch (None when
    no player is left after ``after_id``) and how many players it reset.

    The batch's players are locked in id order first (on PostgreSQL, as
    :func:`players_locked` locks them), so a finalization writing one of them the reset
    itself either went first (its row has the reset now, and is left out) or waits for the
    batch. A batch's statements read a range of the primary key: the last batch costs what
    the first does."""
    connection = connections[router.db_for_write(CupChange)]
    quote = connection.ops.quote_name
    column = {field.name: quote(str(field.column)) for field in CupChange._meta.concrete_fields}
    fields = ("kind", "match", "player", "season", "delta", "cups_after", "created_at")
    ledger = f"{quote(CupChange._meta.db_table)} ({', '.join(column[name] for name in fields)})"
    players = quote(Player._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT MAX(id) FROM (SELECT id FROM {players} WHERE id > %s ORDER BY id LIMIT %s) "
            "AS batch",
            [after_id, limit],
        )
        last = cursor.fetchone()[0]
        if last is None:
            return None, 0
        params: dict[str, Any] = {
            "floor": pending.floor,
            "after": after_id,
            "last": last,
            "season": pending.season,
            "at": pending.at,
            "kind": CupKind.SEASON_RESET.value,
        }
        due = (
            "id > %(after)s AND id <= %(last)s AND NOT is_bot AND (cups < 0 OR cups > %(floor)s)"
            " AND (reset_season IS NULL OR reset_season < %(season)s)"
        )
        if connection.features.has_select_for_update:
            cursor.execute(
                f"SELECT id FROM {players} WHERE {due} ORDER BY id FOR NO KEY UPDATE", params
            )
        new = RESET_SQL.format(cups="cups")
        cursor.execute(
            f"INSERT INTO {ledger} SELECT %(kind)s, NULL, id, %(season)s, {new} - cups, "
            f"{new}, %(at)s FROM {players} WHERE {due}",
            params,
        )
        cursor.execute(
            f"UPDATE {players} SET cups = {new}, cups_changed_at = %(at)s, "
            f"reset_season = %(season)s WHERE {due}",
            params,
        )
        return last, cursor.rowcount


def ladder_close(season: int) -> None:
    """The board of ``season``, which has ended and whose frozen standings replace it, loses
    its counts (KORT_RULES §10); the next season's board starts empty, so no count moves. Call
    it in the transaction that opens the next season."""
    board_retire(season)


LedgerKey = tuple[str, int, int]
"""A ledger row's identity: ``(kind, match id, player id)``, or ``("season_reset", season,
player id)`` for a reset."""


@dataclass(frozen=True)
class LadderRepair:
    """What ``manage.py rebuild_ladder --fix`` writes over the stored ladder, as recomputed
    from the history, one chunk of players at a time: ``players`` with their cup fields
    (``fields``) and ``board_season`` set, all-time statistics values by player id (``stats``),
    season statistics rows by ``(player id, season)`` (``seasons``; ``stale_seasons`` are
    removed), ledger rows by :data:`LedgerKey` (``ledger``; ``stale_ledger`` are removed), and
    the current ``season``, whose board follows the players written (``recount``: counted
    again from every player's row, once the last chunk is written)."""

    players: Sequence[Player]
    fields: Sequence[str]
    stats: Mapping[int, Mapping[str, int]]
    seasons: Mapping[tuple[int, int], Mapping[str, int]]
    stale_seasons: Iterable[tuple[int, int]]
    ledger: Mapping[LedgerKey, Mapping[str, object]]
    stale_ledger: Iterable[LedgerKey]
    season: int
    recount: bool = False


LEDGER_UNIQUE = {
    CupKind.MATCH: Upsert(("match_id", "player_id"), (), "\"kind\" = 'match'"),
    CupKind.VOID: Upsert(("match_id", "player_id"), (), "\"kind\" = 'void'"),
    CupKind.SEASON_RESET: Upsert(("season", "player_id"), (), "\"kind\" = 'season_reset'"),
}
"""The unique index of each kind of ledger row (``ranking.models.CupChange``): the row a
repaired one replaces."""


def ladder_repair(repair: LadderRepair) -> None:
    """Write ``repair`` (see :class:`LadderRepair`) in a few statements whatever its size:
    the players' rows, their statistics (``stats.services.stats_replace``), the ledger rows
    (removed, then inserted or replacing the row of the same key), then the board's counts
    follow the players written (``ranking.board.board_move``) or, with ``recount``, are
    counted again from the players' rows. Call inside the transaction that holds the players'
    and statistics rows of the repair (players in id order, as finalization locks them)."""
    ids = [player.pk for player in repair.players]
    stored = Player.objects.filter(pk__in=ids).only("cups", "board_season", *BOARD_ELIGIBLE)
    before = {p.pk: p.cups if is_on_board(p, repair.season) else None for p in stored}
    names = [*repair.fields, "board_season"]
    update_values(
        Player,
        "id",
        names,
        [[player.pk, *(getattr(player, name) for name in names)] for player in repair.players],
    )
    stats_replace(repair.stats, repair.seasons, repair.stale_seasons)
    for key in sorted(repair.stale_ledger):
        _ledger_rows(key).delete()
    ledger = []
    for kind, unique in LEDGER_UNIQUE.items():
        rows = [
            {
                "kind": kind,
                "player_id": player_id,
                "match_id": None if kind == CupKind.SEASON_RESET else subject,
                **values,
            }
            for (row_kind, subject, player_id), values in sorted(repair.ledger.items())
            if row_kind == kind
        ]
        columns = sorted({name for row in rows for name in row} - {*unique.key, "kind"})
        ledger.append(Insert(CupChange, rows, replacing=replace(unique, columns=columns)))
    run(ledger)
    if repair.recount:
        board_build(repair.season)
    else:
        board_move(
            repair.season,
            [
                (before.get(p.pk), p.cups if is_on_board(p, repair.season) else None)
                for p in repair.players
            ],
        )


def _ledger_rows(key: LedgerKey) -> QuerySet[CupChange]:
    kind, subject, player_id = key
    if kind == CupKind.SEASON_RESET:
        return CupChange.objects.filter(kind=kind, season=subject, player_id=player_id)
    return CupChange.objects.filter(kind=kind, match_id=subject, player_id=player_id)

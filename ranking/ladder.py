"""The ladder's write path (KORT_RULES §7, §8, §10, §11; API.md "Leaderboard").

A player's ladder moves together: ``cups``, ``best_cups``, ``cups_changed_at`` (the
leaderboard's tie-break), ``board_season`` and ``reset_season``, each ledger row's
``cups_after``, the season statistics' ``cups`` and ``best_cups`` (and the counts of "My
games", all time, per season and per mode), the board's counts and its total
(``ranking.board``). Whoever decides a change of the ladder (a finalized match, a void, a ban)
hands :func:`ladder_apply` each player's event (``ranking.fold``); it folds them into the
players' states with the one step the rebuild replays, and writes the rows the step returns,
first folding the pending season reset of those of its players whose rows do not have it yet.
The season's end writes the reset to every other player with :func:`ladder_reset` (a read of
a player's cups ledger writes theirs first, :func:`ladder_reset_player`) and drops the ended
season's board with :func:`ladder_close`. ``manage.py rebuild_ladder --fix`` hands
its repair to :func:`ladder_repair`. Nothing outside this module writes the players' cup
fields, the ledger, the season statistics' cups or the board's counts.

Lock order, the same for every writer (so no two can deadlock): the match rows first (in id
order), then the current season's row (shared, voids only), then the players' rows in id order
(:func:`players_locked`), then the statistics rows (in player id order, by the statements of
``stats.services``: all time, the season's, the mode's), then the §12 rows of the match's
human players, the pair rows (in the order of their unique key, player first) and then the
streak rows (their ended runs, then their streak row, player, season, mode), then the board's
total and its counts in increasing cups (``ranking.board.board_moves``). The writes from the
ledger to the board's counts are one sequence of statements run in that order
(``bulk.updates.run``: one round trip on PostgreSQL); the streak rows (and, for a void or a
match completed before the latest one, the runs next to it) are read before it, without a
lock, and the board's total row is claimed before it (``ranking.board.board_claim``), which
locks nothing but a total row it makes: the season's first move, which builds the counts
after the sequence, while a concurrent writer, holding only its own players' rows, waits for
it. The §12 rows are keyed by a human player of the change, whose player row the writer
holds: two writers never wait on them for each other, since any two changes that share such
a row already queue on that player's row.

The figures of KORT_RULES §12 are part of the same change (``LadderChange.table``): a
finalized match counts in its players' partners, opponents and streaks, its void takes it back
out, in the same transaction as its cups (``stats.services.MatchTable``; how the streaks stay
right under a void in the middle of a run is told there).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.db import connections, router, transaction
from django.db.models import QuerySet

from bulk.sql import id_in, int_rows
from bulk.updates import Insert, Statement, Update, Upsert, run
from matches.kort.rules import Mode, StatsLine
from players.models import BOARD_ELIGIBLE, Player
from ranking.board import (
    board_build,
    board_claim,
    board_move,
    board_moves,
    board_retire,
    is_on_board,
)
from ranking.fold import (
    SEASON_RESET,
    Banned,
    BoardMoved,
    Event,
    Finalized,
    Ledger,
    PlayerLadder,
    Row,
    SeasonCups,
    SeasonOpened,
    SeasonReset,
    StatsAdded,
    Voided,
    fold,
    step,
)
from ranking.models import CupChange, CupKind
from seasons.models import Season
from stats.services import (
    MatchTable,
    PlayerFigures,
    figures_replace,
    pairs_follow,
    season_cups_record,
    season_stats_open,
    stats_add,
    stats_replace,
    streaks_follow,
)
from stats.totals import PendingReset, pending_reset, reset_due


@dataclass(frozen=True)
class LadderChange:
    """One change of the ladder, as a value: what :func:`ladder_apply` writes. ``events``: the
    event of each player it touches, by player id (``ranking.fold``); ``table``: the match as
    KORT_RULES §12 counts it (partners, opponents, streaks), or taken back out (a void,
    ``-table``); None for a change of no match."""

    events: Mapping[int, Event]
    table: MatchTable | None = None

    @property
    def player_ids(self) -> list[int]:
        """Every player the change touches, in the lock order."""
        return sorted(self.events)


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


def ladder_of(player: Player) -> PlayerLadder:
    """The ladder state of ``player`` as loaded."""
    return PlayerLadder(
        cups=player.cups,
        best_cups=player.best_cups,
        changed_at=player.cups_changed_at,
        board_season=player.board_season,
        banned=player.is_banned,
        bot=player.is_bot,
        reset_season=player.reset_season,
    )


PLAYER_FIELDS = {
    "cups": "cups",
    "best_cups": "best_cups",
    "cups_changed_at": "changed_at",
    "board_season": "board_season",
    "is_banned": "banned",
    "reset_season": "reset_season",
}
"""The ``Player`` fields that hold a :class:`PlayerLadder`, with the state's names."""

TOTALS = ("cups", "best_cups", "cups_changed_at")
"""The fields of a player's total."""


def ladder_apply(
    change: LadderChange,
    players: Sequence[Player],
    season: Season,
    *,
    then: Sequence[Statement] = (),
) -> None:
    """Apply ``change`` to ``players`` (their rows locked by :func:`players_locked`, every
    player of ``change.player_ids`` and no other) in the caller's transaction, ``season``
    being the current season: each player's state (:func:`ladder_of`) folds the pending
    season reset, if their row does not have it yet (§10), then their event
    (``ranking.fold.step``), and the rows of the steps are written together with the
    players' new states, the match's §12 figures and the board's counts
    (``bulk.updates.run``: one round trip on PostgreSQL), with the caller's own writes
    ``then`` last (a finalized match's time). The ``Player`` objects follow.
    """
    pending = pending_reset(season)
    reset = None if pending is None else SeasonReset(pending.season, pending.floor, pending.at)
    rows: list[tuple[int, Row]] = []
    states = {}
    for player in players:
        state = ladder_of(player)
        events = [change.events[player.pk]] if reset is None else [reset, change.events[player.pk]]
        states[player.pk], steps = fold(state, events)
        rows += [(player.pk, row) for row in steps]
    statements = [
        Insert(CupChange, [_ledger_row(pid, row) for pid, row in rows if isinstance(row, Ledger)]),
        *_players_written(players, states),
        *_season_rows(rows),
        *_stats_added(rows),
    ]
    if change.table is not None:
        statements += pairs_follow(change.table)
        statements += streaks_follow(change.table)
    if any(_sees_board(event) for event in change.events.values()):
        if board_claim(season.number):
            run([*statements, *then])
            board_build(season.number)
            return
        moves = [(row.before, row.after) for _, row in rows if isinstance(row, BoardMoved)]
        statements += board_moves(season.number, moves)
    run([*statements, *then])


def _sees_board(event: Event) -> bool:
    """Whether the current season's board sees ``event``: a ban, or a change of cups."""
    if isinstance(event, Finalized | Voided):
        return event.cups is not None
    return isinstance(event, Banned)


def _ledger_row(player_id: int, row: Ledger) -> dict[str, object]:
    return {
        "kind": row.kind,
        "match_id": None if row.kind == SEASON_RESET else row.subject,
        "player_id": player_id,
        "season": row.season,
        "delta": row.delta,
        "cups_after": row.cups_after,
        "created_at": row.at,
    }


def _players_written(players: Sequence[Player], states: Mapping[int, PlayerLadder]) -> list[Update]:
    """The rows of the players whose state changed set to their new states, in one statement
    (the ``Player`` objects follow)."""
    rows = []
    for player in players:
        values = [getattr(states[player.pk], held) for held in PLAYER_FIELDS.values()]
        if values != [getattr(player, name) for name in PLAYER_FIELDS]:
            rows.append([player.pk, *values])
        for name, value in zip(PLAYER_FIELDS, values, strict=True):
            setattr(player, name, value)
    return [Update(Player, ("id",), dict.fromkeys(PLAYER_FIELDS, "="), rows)]


def _season_rows(rows: Sequence[tuple[int, Row]]) -> list[Statement]:
    """The season statistics rows opened (with the totals before) and their cups recorded,
    season by season (``stats.services``)."""
    opened: dict[int, dict[int, int]] = {}
    recorded: dict[int, dict[int, int]] = {}
    for player_id, row in rows:
        if isinstance(row, SeasonOpened):
            opened.setdefault(row.season, {}).setdefault(player_id, row.cups)
        elif isinstance(row, SeasonCups):
            recorded.setdefault(row.season, {})[player_id] = row.cups
    statements = []
    for number, totals in sorted(opened.items()):
        statements += season_stats_open(number, totals)
    for number, totals in sorted(recorded.items()):
        statements += season_cups_record(number, totals)
    return statements


def _stats_added(rows: Sequence[tuple[int, Row]]) -> list[Statement]:
    """The statistics lines added, a team's line at a time (the players of one line share a
    statement's amounts): ``stats.services.stats_add`` per season, mode and sign."""
    lines: dict[tuple[int, str, int], list[tuple[StatsLine, list[int]]]] = {}
    for player_id, row in rows:
        if not isinstance(row, StatsAdded):
            continue
        line = row.line if row.sign > 0 else -row.line
        teams = lines.setdefault((row.season, row.mode, row.sign), [])
        same = next((ids for other, ids in teams if other == line), None)
        if same is None:
            teams.append((line, [player_id]))
        else:
            same.append(player_id)
    statements = []
    for (number, mode, _), teams in lines.items():
        statements += stats_add(teams, season=number, ranked=mode == Mode.RANKED)
    return statements


def ladder_reset(pending: PendingReset, after_id: int, limit: int) -> tuple[int | None, int]:
    """Write the soft reset that opened season ``pending.season`` (KORT_RULES §10) to the
    next ``limit`` players by id after ``after_id``, in the caller's transaction: each player
    whose state the reset changes (``ranking.fold.step`` of a :class:`~ranking.fold.SeasonReset`:
    a human whose row does not have it yet, with a total it changes) gets its ledger row and
    their new total, stamped ``pending.at`` (``best_cups`` stays: a reset only lowers a
    total, or lifts a negative one to 0). A player whose total it keeps is left as stored:
    folding the reset again finds the same total, and their next change folds it (and records
    it) before itself. Returns the last player id of the batch (None when no player is left
    after ``after_id``) and how many players it reset.

    The rows of the batch's humans without the reset are locked in id order (on PostgreSQL,
    as :func:`players_locked` locks them) and folded as read locked: a finalization that
    wrote one of them the reset itself went first (their row has it now), or waits for the
    batch. Each read is a range of the primary key: the last batch costs what the first
    does."""
    reset = SeasonReset(pending.season, pending.floor, pending.at)
    connection = connections[router.db_for_write(Player)]
    table = connection.ops.quote_name(Player._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(name) for name in RESET_COLUMNS)
    lock = " FOR NO KEY UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT MAX(id) FROM (SELECT id FROM {table} WHERE id > %s ORDER BY id LIMIT %s) "
            "AS batch",
            [after_id, limit],
        )
        last = cursor.fetchone()[0]
        if last is None:
            return None, 0
        cursor.execute(
            f"SELECT {columns} FROM {table} WHERE id > %s AND id <= %s AND NOT is_bot "
            f"AND (reset_season IS NULL OR reset_season < %s) ORDER BY id{lock}",
            [after_id, last, pending.season],
        )
        locked = cursor.fetchall()
    reset_rows = []
    for row in locked:
        state, rows = step(_reset_state(row), reset)
        if rows:
            reset_rows.append((row[0], state.cups - row[1], state.cups))
    if reset_rows:
        _resets_written(connection, reset, reset_rows)
    return last, len(reset_rows)


def _resets_written(
    connection: Any, reset: SeasonReset, rows: Sequence[tuple[int, int, int]]
) -> None:
    """The reset's ledger rows and the players' new totals from ``rows``, ``(player id, delta,
    cups after)`` each, stamped ``reset.at``: two statements whatever the rows."""
    quote = connection.ops.quote_name
    source, params = int_rows(("player", "delta", "cups"), rows, connection.vendor)
    column = {field.name: quote(str(field.column)) for field in CupChange._meta.concrete_fields}
    names = ("kind", "match", "player", "season", "delta", "cups_after", "created_at")
    ledger = f"{quote(CupChange._meta.db_table)} ({', '.join(column[name] for name in names)})"
    table = quote(Player._meta.db_table)
    at = Player._meta.get_field("cups_changed_at").get_db_prep_save(reset.at, connection)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {ledger} SELECT %s, NULL, v.player, %s, v.delta, v.cups, %s "
            f"FROM {source}",
            [SEASON_RESET, reset.season, at, *params],
        )
        cursor.execute(
            f"UPDATE {table} SET cups = v.cups, cups_changed_at = %s, reset_season = %s "
            f"FROM {source} WHERE {table}.id = v.player",
            [at, reset.season, *params],
        )


def ladder_reset_player(player: Player, season: Season) -> None:
    """Write the pending soft reset of ``season`` (the current season) to ``player``'s row now,
    if their row as read does not have it and it changes their total: :func:`ladder_reset` of
    the batch of this one player, in a short transaction on the primary (the caller's, if it
    is in one). The row is read again there, locked, so a reset already written (by a batch of
    the season's end, a change of theirs, another read) is not written again.

    A read of the player's cups ledger calls it first (``ranking.selectors.player_ledger``),
    so the ledger it reads is the stored rows, the reset's row among them with the stamp every
    player's reset has, whatever writes it. It waits for a batch or a change that holds the
    row (about a second at most), and is written once per player and season."""
    pending = pending_reset(season)
    if reset_due(player, pending) is None:
        return
    assert pending is not None  # reset_due finds none without a pending reset
    with transaction.atomic(using=router.db_for_write(Player)):
        ladder_reset(pending, player.pk - 1, 1)  # the first player after pk - 1: this one


RESET_COLUMNS = ("id", "cups", "best_cups", "is_bot", "reset_season")
"""What the reset reads of a player's row: their id and the state the reset step reads."""


def _reset_state(row: Sequence[Any]) -> PlayerLadder:
    _, cups, best_cups, bot, reset_season = row
    return PlayerLadder(cups=cups, best_cups=best_cups, bot=bot, reset_season=reset_season)


def ladder_close(season: int) -> None:
    """The board of ``season``, which has ended and whose frozen standings replace it, loses
    its counts (KORT_RULES §10); the next season's board starts empty, so no count moves. Call
    it in the transaction that opens the next season."""
    board_retire(season)


LedgerKey = tuple[str, int, int]
"""A ledger row's identity: ``(kind, match id, player id)``, or ``("season_reset", season,
player id)`` for a reset."""


@dataclass
class LadderRepair:
    """What ``manage.py rebuild_ladder --fix`` writes over the stored ladder, as recomputed
    from the history, one chunk of players at a time, the current ``season`` being given:
    each player's state by id (``players``: their totals, :data:`TOTALS`, and board season
    written), all-time statistics values by player id (``stats``), season statistics rows by
    ``(player id, season)`` (``seasons``), ledger rows by :data:`LedgerKey` (``ledger``; a
    row None is removed), and every row of the statistics per mode and of KORT_RULES §12 of
    the players of ``figures`` (by player id). The board follows the players written
    (``recount``: counted again from every player's row, once the last chunk is written)."""

    season: int
    players: dict[int, PlayerLadder] = field(default_factory=dict)
    stats: dict[int, dict[str, int]] = field(default_factory=dict)
    seasons: dict[tuple[int, int], dict[str, int] | None] = field(default_factory=dict)
    ledger: dict[LedgerKey, dict[str, object] | None] = field(default_factory=dict)
    figures: dict[int, PlayerFigures] = field(default_factory=dict)
    recount: bool = False

    def __bool__(self) -> bool:
        """Whether there is anything to write."""
        held = (self.players, self.stats, self.seasons, self.ledger, self.figures)
        return self.recount or any(held)


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
    (removed, then inserted or replacing the row of the same key) and the figures per mode and
    of §12 (``stats.services.figures_replace``), then the board's counts
    follow the players written (``ranking.board.board_move``) or, with ``recount``, are
    counted again from the players' rows. Call inside the transaction that holds the players'
    and statistics rows of the repair (players in id order, as finalization locks them)."""
    ids = sorted(repair.players)
    stored = Player.objects.filter(pk__in=ids).only("cups", "board_season", *BOARD_ELIGIBLE)
    before = {p.pk: p.cups if is_on_board(p, repair.season) else None for p in stored}
    names = [*TOTALS, "board_season"]
    written = [
        Player(pk=pid, **{n: getattr(repair.players[pid], PLAYER_FIELDS[n]) for n in names})
        for pid in ids
    ]
    Player.objects.bulk_update(written, names)
    seasons = {key: values for key, values in repair.seasons.items() if values is not None}
    stats_replace(repair.stats, seasons, [key for key in repair.seasons if key not in seasons])
    for key in sorted(key for key, values in repair.ledger.items() if values is None):
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
            if row_kind == kind and values is not None
        ]
        columns = sorted({name for row in rows for name in row} - {*unique.key, "kind"})
        ledger.append(Insert(CupChange, rows, replace(unique, columns=columns)))
    run([*ledger, *figures_replace(repair.figures)])
    if repair.recount:
        board_build(repair.season)
    else:
        moves = [
            (before.get(pid), state.on_board(repair.season))
            for pid, state in repair.players.items()
        ]
        board_move(repair.season, moves)


def _ledger_rows(key: LedgerKey) -> QuerySet[CupChange]:
    kind, subject, player_id = key
    if kind == CupKind.SEASON_RESET:
        return CupChange.objects.filter(kind=kind, season=subject, player_id=player_id)
    return CupChange.objects.filter(kind=kind, match_id=subject, player_id=player_id)

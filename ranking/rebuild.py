"""Rebuild the ladder from its history (KORT_RULES §7, §8, §10, §11; ``manage.py
rebuild_ladder``).

Finalization, the season ends and voids fold each event into the players' cups, ledger rows
and statistics as it happens. Every figure the folds write belongs to one player, and each
player's figures follow from that player's own events alone: the matches they sat in (each
through ``ranking.effects.match_effect``, the step finalization applies, at its finalization
time), the voids of those matches (the same effect taken back out, at the void's time), and
for every finalized season the reset that opened the next one, with the floor its end used,
stamped when its rows were written. So the rebuild is a merge join: players are read in id
order, a chunk at a time, and beside them, in the same order, every stored row that belongs to
them (their seats in finalized and voided matches with the matches' rounds, their all-time and
season statistics, their ledger rows, their frozen standings), each read in keyset chunks of
at most :data:`CHUNK` rows. Each player's events are replayed in the order they were applied
(season by season, the reset opening a season first, then its events in time order) and the
result compared with that player's rows; then the next player. Time grows with the rows, and
memory is bounded by a chunk (and the largest single player's history), not by the history.

Recomputed per player: ``cups`` (the sum of their ledger deltas), ``best_cups`` (the running
maximum, starting at 0), ``cups_changed_at`` (the time of their last cup change) and every
field of their statistics row; per player and season, the season's statistics row (counts,
ranked matches, cups and best cups, counting from the total the season opened with); the ledger
row of each cup change (``delta``, ``cups_after``, ``season``, ``created_at``). The frozen final
standings of each finalized season are checked against the replay's board at that season's end
(each row's figures per player; the ranks once every player is read, from one sorted key per
player of that board) but never rewritten. The current season's board: who is on it
(``board_season``) and its counts (``ranking.board``), counted from the recomputed players.

``--fix`` writes each chunk's differences through ``ranking.ladder.ladder_repair`` in one
transaction per chunk, which first locks the chunk's players (in id order) and their statistics
rows, as finalization does, and then reads their history: a finalization that runs meanwhile
waits, or is read. Once every chunk is written the current season's board is counted again.

**Checks.** What is compared is a list of checks (:data:`CHECKS`), each fed the same ordered
stream: every player's :class:`PlayerRows` (their rows of every stream of :data:`STREAMS`, and
their replay), then a last call once all players are read. A further check is a class with
those two methods (``player`` and ``finish``, see :class:`Check`) appended to :data:`CHECKS`;
it may read a stream of its own by appending a :class:`Stream` (a query over rows that belong
to a player, ordered by player id first) to :data:`STREAMS`, whose rows then appear in
``PlayerRows.rows`` under the stream's name, and in ``--fix`` it adds what it writes to the
chunk's :class:`ChunkRepair`.

**Partners, opponents, streaks and the figures per mode** (KORT_RULES §12) are checked last, in
a run over every season, by ``stats.rebuild_pairs.pairs_rebuild`` (its own chunks of players,
locked in id order with ``--fix``); their differences are reported as the ladder's are, once
the ladder has none (their cups are the ledger's).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from itertools import groupby
from operator import add, itemgetter, sub
from typing import Any, NamedTuple, Protocol

from django.db import connections, router, transaction
from django.db.models import Q

from bulk.sql import id_in
from domain.errors import Conflict
from matches.kort.rules import Mode, StatsLine, Team, team_of
from matches.models import Match, MatchStatus, Round, RoundStatus, Seat, stored_result
from players.models import Player, may_be_on_a_board
from ranking.board import board_differences, current_season_number, stored_board
from ranking.effects import MatchFacts, match_effect
from ranking.fold import (
    Event,
    Finalized,
    Ledger,
    PlayerLadder,
    SeasonCups,
    SeasonOpened,
    SeasonReset,
    StatsAdded,
    Voided,
    step,
)
from ranking.ladder import LadderRepair, LedgerKey, ladder_repair
from ranking.models import BoardTotal, CupChange, CupKind, SeasonEnd, SeasonStanding
from seasons.models import Season, SeasonStatus
from stats.models import PlayerStats, SeasonStats, counts_for_the_board
from stats.rebuild_pairs import pairs_rebuild
from stats.services import stats_values

CHUNK = 2000
"""Players a chunk holds, and rows one read of a stream fetches at most."""
CUP_FIELDS = ("cups", "best_cups", "cups_changed_at")
STAT_FIELDS = tuple(stats_values(StatsLine()))
"""The statistics' count columns, in the order they are compared and shown."""
LEDGER_FIELDS = ("delta", "created_at", "cups_after", "season")
LEDGER_NAMED_BY = ("delta", "created_at")
"""A ledger row found on one side only is shown by what it moves and when."""
SEASON_FIELDS = ("ranked_played", "ranked_won", "cups", "best_cups")
SEASON_NAMED_BY = ("matches_played", "ranked_played", "cups")
STANDING_FIELDS = ("rank", "cups", "best_cups", "matches_played", "matches_won")
STANDING_NAMED_BY = ("rank", "cups")
KIND_ORDER = {CupKind.MATCH: 0, CupKind.VOID: 1, CupKind.SEASON_RESET: 2}


@dataclass(frozen=True)
class Difference:
    """A stored value that the replay does not reach. ``subject`` names the player or the
    row; ``None`` stands for a missing row (stored) or a row that should not exist
    (recomputed)."""

    subject: str
    field: str
    stored: object
    recomputed: object
    frozen: bool = False
    """In a finalized season's standings, which are reported and never rewritten."""

    def __str__(self) -> str:
        return (
            f"{self.subject}: {self.field} stored {_shown(self.stored)}, "
            f"recomputed {_shown(self.recomputed)}"
        )


def _shown(value) -> str:
    if value is None:
        return "none"
    return value.isoformat() if isinstance(value, datetime) else str(value)


# --- the streams ----------------------------------------------------------------------------


def _fetch(cursor, sql: str, params: Sequence[Any]) -> list[tuple]:
    """One read of a stream (at most a chunk of rows)."""
    cursor.execute(sql, params)
    return cursor.fetchall()


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _time(micros: int | None) -> datetime | None:
    """A time the replay holds (microseconds since 1970, UTC) as a datetime."""
    return None if micros is None else EPOCH + timedelta(microseconds=micros)


def _micros(at: datetime | None) -> int | None:
    """A datetime as the replay holds it: whole microseconds since 1970 (ints compare and sort
    fast; only a time shown or written is made a datetime again)."""
    return None if at is None else (at - EPOCH) // timedelta(microseconds=1)


@dataclass(frozen=True)
class Times:
    """How the streams read times on one database: as microseconds since 1970 in SQL on
    PostgreSQL (no datetime made per row), as the ORM reads them and then converted on
    SQLite."""

    connection: Any

    @property
    def in_sql(self) -> bool:
        return self.connection.vendor == "postgresql"

    def read(self, column: str) -> str:
        """The SQL that reads ``column`` (a time) as the replay holds it."""
        if self.in_sql:
            return f"CAST(EXTRACT(EPOCH FROM {column}) * 1000000 AS bigint)"
        return column

    def mark(self) -> str:
        """A parameter holding a value :meth:`read` read, as a time again."""
        if self.in_sql:
            return "(TIMESTAMPTZ 'epoch' + %s * INTERVAL '1 microsecond')"
        return "%s"

    def converter(self) -> Callable[[Any], int | None]:
        """What turns a value :meth:`read` read into microseconds."""
        if self.in_sql:
            return lambda value: value
        convert = self.connection.ops.convert_datetimefield_value
        return lambda value: (
            None if value is None else _micros(convert(value, None, self.connection))
        )


class Key(NamedTuple):
    """One column of a stream's order: its SQL, descending, and whether it is a time."""

    sql: str
    descending: bool = False
    time: bool = False


@dataclass(frozen=True)
class Stream:
    """Rows that belong to players, read in keyset chunks: ``columns`` (SQL, the player's id
    first) of ``source`` (``FROM ...``) with the condition ``where`` (``{first}`` and
    ``{last}`` are the chunk's first and last player ids), ordered by ``order`` (the player's
    id first; together unique per row, and an index's order, so that each read is a range of
    the index). ``convert`` turns each fetched row (``columns``, then the values of ``order``)
    into what the checks read."""

    name: str
    columns: str
    source: str
    where: str
    order: tuple[Key, ...]
    convert: Callable[[tuple], Any] = tuple
    enrich: Callable[[Any, list], list] | None = None
    """Called with the cursor and each read's converted rows; returns the rows handed on
    (e.g. with what a further read of the same chunk adds to them)."""

    def rows(self, cursor, times: Times, first: int, last: int, chunk: int) -> Iterator[list]:
        """The rows of the players ``first`` to ``last``, in order, in reads of ``chunk``
        (one list each)."""
        order_by = ", ".join(f"{key.sql} DESC" if key.descending else key.sql for key in self.order)
        fetched = ", ".join(times.read(key.sql) if key.time else key.sql for key in self.order)
        where = self.where.format(first="%s", last="%s")
        after: tuple | None = None
        positions = len(self.order)
        while True:
            condition, params = _after(self.order, after, times)
            rows = _fetch(
                cursor,
                f"SELECT {self.columns}, {fetched} {self.source} WHERE {where}{condition} "
                f"ORDER BY {order_by} LIMIT {chunk}",
                [first, last, *params],
            )
            converted = [self.convert(row) for row in rows]
            yield converted if self.enrich is None else self.enrich(cursor, converted)
            if len(rows) < chunk:
                return
            after = rows[-1][-positions:]


def _after(order: tuple[Key, ...], after: tuple | None, times: Times) -> tuple[str, list]:
    """The keyset condition of the rows after ``after`` (the last row's ``order`` values),
    with the leading column's bound spelled out so that it is an index condition."""
    if after is None:
        return "", []
    marks = [times.mark() if key.time else "%s" for key in order]
    alternatives, params = [], []
    for position, key in enumerate(order):
        equal = [f"{earlier.sql} = {marks[n]}" for n, earlier in enumerate(order[:position])]
        beyond = f"{key.sql} {'<' if key.descending else '>'} {marks[position]}"
        alternatives.append(" AND ".join([*equal, beyond]))
        params += [*after[:position], after[position]]
    lead = order[0]
    return (
        f" AND {lead.sql} {'<=' if lead.descending else '>='} {marks[0]} "
        f"AND ({' OR '.join(alternatives)})",
        [after[0], *params],
    )


def _table(model) -> str:
    return f'"{model._meta.db_table}"'


class PlayerRow(NamedTuple):
    id: int
    username: str
    is_bot: bool
    is_banned: bool
    cups: int
    best_cups: int
    cups_changed_at: int | None
    board_season: int | None


class SeatRow(NamedTuple):
    """A seat of the player in a finalized or voided match, with the match's facts (times in
    microseconds, see :func:`_micros`)."""

    player_id: int
    match_id: int
    seat: int
    mode: str
    status: str
    winner: str
    wins_a: int
    wins_b: int
    season: int
    finalized_at: int | None
    void_season: int | None
    voided_at: int | None


class LedgerRow(NamedTuple):
    player_id: int
    id: int
    kind: str
    match_id: int | None
    season: int
    delta: int
    created_at: int
    cups_after: int


CREATED_AT, FINALIZED_AT, VOIDED_AT = '"created_at"', '"finalized_at"', '"voided_at"'


def streams(times: Times) -> list[Stream]:
    """The streams the ladder's check reads, beside the players."""
    micros = times.converter()
    seat, match, ledger = _table(Seat), _table(Match), _table(CupChange)
    counts = ", ".join(f'"{name}"' for name in STAT_FIELDS)
    over = f"('{MatchStatus.FINALIZED.value}', '{MatchStatus.VOID.value}')"
    by_player = '"player_id" BETWEEN {first} AND {last}'

    def ledger_row(row: tuple) -> LedgerRow:
        values = list(row[:8])
        values[6] = micros(values[6])
        return LedgerRow._make(values)

    def with_matches(cursor, seats: list[tuple]) -> list[tuple]:
        """The seats of matches over, each with its match's facts and rounds: two reads by
        the matches' ids (no join, so each is a range of the matches' and rounds' keys)."""
        ids = sorted({match_id for _, match_id, _ in seats})
        if not ids:
            return []
        chosen, params = id_in('"id"', ids, times.connection.vendor)
        facts = {
            row[0]: row[1:]
            for row in _fetch(
                cursor,
                f'SELECT "id", "mode", "status", "winner", "wins_a", "wins_b", "season", '
                f'{times.read(FINALIZED_AT)}, "void_season", '
                f"{times.read(VOIDED_AT)} FROM {match} "
                f'WHERE {chosen} AND "status" IN {over}',
                params,
            )
        }
        rounds = _rounds(cursor, list(facts), len(seats))
        rows = []
        for player_id, match_id, number in seats:
            found = facts.get(match_id)
            if found is None:
                continue
            mode, status, winner, wins_a, wins_b, season, done, void_season, voided = found
            seat = SeatRow(
                player_id, match_id, number, mode, status, winner, wins_a, wins_b, season,
                micros(done), void_season, micros(voided),
            )  # fmt: skip
            rows.append((player_id, seat, rounds.get(match_id, ())))
        return rows

    return [
        Stream(
            "stats",
            f'"player_id", {counts}',
            f"FROM {_table(PlayerStats)}",
            by_player,
            (Key('"player_id"'),),
        ),
        Stream(
            "seasons",
            f'"player_id", "id", "season", {counts}, "ranked_played", "ranked_won", "cups", '
            '"best_cups"',
            f"FROM {_table(SeasonStats)}",
            by_player,
            (Key('"player_id"'), Key('"season"')),
        ),
        Stream(
            "ledger",
            f'"player_id", "id", "kind", "match_id", "season", "delta", '
            f'{times.read(CREATED_AT)}, "cups_after"',
            f"FROM {ledger}",
            by_player,
            (Key('"player_id"'), Key('"created_at"', True, True), Key('"id"', True)),
            ledger_row,
        ),
        Stream(
            "seats",
            '"player_id", "match_id", "seat"',
            f"FROM {seat}",
            by_player,
            (Key('"player_id"'), Key('"match_created_at"', True, True), Key('"match_id"', True)),
            lambda row: row[:3],
            with_matches,
        ),
        Stream(
            "standings",
            '"player_id", "season_id", "rank", "cups", "best_cups", "matches_played", '
            '"matches_won"',
            f"FROM {_table(SeasonStanding)}",
            by_player,
            (Key('"player_id"'), Key('"season_id"')),
        ),
    ]


STREAMS: list[Callable[[Times], Stream]] = []
"""Further streams (each made for the database's :class:`Times`), read beside
:func:`streams`."""


def _rounds(cursor, match_ids: Sequence[int], chunk: int) -> dict[int, tuple]:
    """The finished rounds of ``match_ids`` in order, as ``stored_result`` arguments, by
    match; read in keyset chunks of ``chunk`` rows."""
    rounds: dict[int, list] = {}
    table = _table(Round)
    if not match_ids:
        return {}
    for start in range(0, len(match_ids), chunk):
        ids = sorted(set(match_ids[start : start + chunk]))
        chosen, params = id_in('"match_id"', ids, cursor.db.vendor)
        after: tuple = (0, 0)
        while True:
            rows = _fetch(
                cursor,
                f'SELECT "match_id", "number", "trump_seat", "outcome", "winner", '
                f'"wins_awarded", "shutout_team" FROM {table} WHERE {chosen} '
                f'AND "status" = %s AND ("match_id" > %s OR ("match_id" = %s AND "number" > %s))'
                f' ORDER BY "match_id", "number" LIMIT {chunk}',
                [*params, RoundStatus.FINISHED.value, after[0], after[0], after[1]],
            )
            for row in rows:
                rounds.setdefault(row[0], []).append(row[2:])
            if len(rows) < chunk:
                break
            after = rows[-1][:2]
    return {match_id: tuple(rows) for match_id, rows in rounds.items()}


# --- one player's replay --------------------------------------------------------------------


@dataclass(frozen=True)
class History:
    """What every player's replay reads besides their own rows: each finalized season's reset
    floor and end time (in microseconds, see :func:`_micros`), and the current season."""

    reset_floors: dict[int, int]
    finalized_at: dict[int, int]
    current: int


def stored_history() -> History:
    ends = SeasonEnd.objects.filter(season__status=SeasonStatus.FINALIZED)
    return History(
        reset_floors=dict(ends.values_list("season_id", "reset_floor")),
        finalized_at={
            number: micros
            for number, at in ends.values_list("season_id", "season__finalized_at")
            if (micros := _micros(at)) is not None
        },
        current=current_season_number(),
    )


class BoardEntry(NamedTuple):
    """A player's row of a season's board at the season's end, as the replay finds it."""

    cups: int
    cups_changed_at: int | None
    best_cups: int
    matches_played: int
    matches_won: int


@dataclass
class SeasonTotals:
    """One player's figures of one season as the replay recomputes them."""

    cups: int
    best_cups: int
    stats: list[int] = field(default_factory=lambda: [0] * len(STAT_FIELDS))
    ranked_played: int = 0
    ranked_won: int = 0

    def values(self) -> dict:
        return dict(zip(STAT_FIELDS, self.stats, strict=True)) | {
            name: getattr(self, name) for name in SEASON_FIELDS
        }


@dataclass
class PlayerReplay:
    """One player's ladder recomputed from their history: the rows of ``ranking.fold``'s
    steps added up as the writer adds them: totals, all-time statistics (in
    :data:`STAT_FIELDS` order), season rows by season, ledger rows by :data:`LedgerKey`, and
    their entry on each finalized season's board at its end."""

    player_id: int
    state: PlayerLadder = field(default_factory=PlayerLadder)
    stats: list[int] = field(default_factory=lambda: [0] * len(STAT_FIELDS))
    seasons: dict[int, SeasonTotals] = field(default_factory=dict)
    ledger: dict[LedgerKey, tuple] = field(default_factory=dict)
    boards: dict[int, BoardEntry] = field(default_factory=dict)

    @property
    def cups(self) -> int:
        return self.state.cups

    @property
    def best_cups(self) -> int:
        return self.state.best_cups

    @property
    def cups_changed_at(self) -> int | None:
        return self.state.changed_at

    def step(self, event: Event) -> None:
        """Fold ``event`` and add up its rows."""
        before = self.state.cups
        self.state, rows = step(self.state, event)
        for row in rows:
            if isinstance(row, Ledger):
                key = (row.kind, row.subject, self.player_id)
                self.ledger[key] = (row.delta, row.at, row.cups_after, row.season)
            elif isinstance(row, SeasonOpened):
                self.seasons.setdefault(row.season, SeasonTotals(row.cups, row.cups))
            elif isinstance(row, SeasonCups):
                totals = self.seasons[row.season]
                totals.cups, totals.best_cups = row.cups, max(totals.best_cups, row.cups)
            elif isinstance(row, StatsAdded):
                totals = self.seasons.setdefault(row.season, SeasonTotals(before, before))
                combine = add if row.sign > 0 else sub
                self.stats = list(map(combine, self.stats, row.line))
                totals.stats = list(map(combine, totals.stats, row.line))
                if row.ranked:
                    totals.ranked_played += row.sign * row.line[0]
                    totals.ranked_won += row.sign * row.line[1]


EFFECTS_KEPT = 100_000
"""Distinct match shapes whose effect is kept (most matches repeat a few shapes)."""
_effects: dict[tuple, tuple[int | None, tuple[int, ...]]] = {}


def seat_effect(seat: SeatRow, rounds: tuple) -> tuple[int | None, tuple[int, ...]]:
    """What the match of ``seat`` gave its player: cups (None unranked) and the statistics
    line in :data:`STAT_FIELDS` order (``ranking.effects.match_effect``, computed once per
    shape of match: mode, winner, wins, rounds and the player's team)."""
    team = team_of(seat.seat)
    key = (seat.mode, seat.winner, seat.wins_a, seat.wins_b, rounds, team)
    effect = _effects.get(key)
    if effect is None:
        facts = MatchFacts(
            ranked=seat.mode == Mode.RANKED,
            winner=Team(seat.winner),
            wins={Team.A: seat.wins_a, Team.B: seat.wins_b},
            results=[stored_result(*row) for row in rounds],
            human_teams={seat.player_id: team},
            season=seat.season,
        )
        mine = match_effect(facts)[seat.player_id]
        effect = (mine.cups, tuple(stats_values(mine.stats).values()))
        if len(_effects) >= EFFECTS_KEPT:
            _effects.clear()
        _effects[key] = effect
    return effect


def player_replay(
    player: PlayerRow, seats: Iterable[tuple[int, SeatRow, tuple]], resets: dict, history: History
) -> PlayerReplay:
    """Fold the player's matches (``seats`` with their rounds) and voids and the season ends
    of ``history`` with ``ranking.fold.step``, in the order they were applied (season by
    season; a season's reset first, then its events in time order). ``resets`` holds the
    stored reset rows' times by the season they opened. Bots get nothing."""
    replay = PlayerReplay(player.id)
    if player.is_bot:
        return replay
    events: list[tuple[tuple, Event | None]] = []
    for _, seat, rounds in seats:
        cups, line = seat_effect(seat, rounds)
        at, number = seat.finalized_at, seat.season
        finalized = Finalized(seat.match_id, number, seat.mode, line, cups, at, number)
        events.append(((number, 1, at, 0, seat.match_id), finalized))
        if seat.status == MatchStatus.VOID:
            assert seat.void_season is not None  # constraint void_iff_voided
            voided = Voided(
                seat.match_id, number, seat.mode, line, cups, seat.voided_at, seat.void_season, True
            )
            events.append(((seat.void_season, 1, seat.voided_at, 1, seat.match_id), voided))
    for season in history.reset_floors:
        events.append(((season + 1, 0), None))
    events.sort(key=itemgetter(0))
    for key, event in events:
        if event is None:
            season = key[0] - 1
            _board_entry(replay, season)
            at = resets.get(season + 1, history.finalized_at[season])
            event = SeasonReset(season + 1, history.reset_floors[season], at)
        replay.step(event)
    return replay


def _board_entry(replay: PlayerReplay, season: int) -> None:
    """The player's entry on the board of ``season`` at its end, if they are on it."""
    row = replay.seasons.get(season)
    if row is not None and counts_for_the_board(row.ranked_played):
        replay.boards[season] = BoardEntry(
            replay.cups, replay.cups_changed_at, row.best_cups, row.ranked_played, row.ranked_won
        )


# --- the checks -----------------------------------------------------------------------------


@dataclass
class PlayerRows:
    """One player's row, their rows of every stream (by the stream's name), and their
    replay: what each check is fed, in player id order."""

    player: PlayerRow
    rows: dict[str, list]
    replay: PlayerReplay

    @property
    def label(self) -> str:
        return _player_label(self.player.id, self.player.username)


@dataclass
class ChunkRepair:
    """What ``--fix`` writes for one chunk (see ``ranking.ladder.LadderRepair``)."""

    players: list[Player] = field(default_factory=list)
    stats: dict[int, dict[str, int]] = field(default_factory=dict)
    seasons: dict[tuple[int, int], dict] = field(default_factory=dict)
    stale_seasons: list[tuple[int, int]] = field(default_factory=list)
    ledger: dict[LedgerKey, dict] = field(default_factory=dict)
    stale_ledger: list[LedgerKey] = field(default_factory=list)

    def __bool__(self) -> bool:
        return any(
            (
                self.players,
                self.stats,
                self.seasons,
                self.stale_seasons,
                self.ledger,
                self.stale_ledger,
            )
        )


Report = Callable[[Difference], None]


class Check(Protocol):
    """A check fed every player's rows in id order (``player``; in ``--fix`` it adds what to
    write to ``repair``, or None in a check run), then ``finish`` once all are read."""

    def player(self, rows: PlayerRows, report: Report, repair: ChunkRepair | None) -> None: ...

    def finish(self, report: Report) -> None: ...


def _player_label(player_id: int, username: str) -> str:
    return f"player {username} (id {player_id})"


def _compared(
    subject: str, stored: dict | None, recomputed: dict | None, named_by: tuple = ()
) -> list[Difference]:
    """The fields of a row that differ; a row on one side only is shown by ``named_by``."""
    if stored is None or recomputed is None:
        return [
            Difference(subject, name, stored and stored[name], recomputed and recomputed[name])
            for name in named_by
        ]
    return [
        Difference(subject, name, stored[name], value)
        for name, value in recomputed.items()
        if stored[name] != value
    ]


def _ledger_order(key: LedgerKey) -> tuple:
    kind, subject, player_id = key
    return (KIND_ORDER[CupKind(kind)], subject, player_id)


def _ledger_label(key: LedgerKey) -> str:
    kind, subject, _ = key
    if kind == CupKind.MATCH:
        return f"ledger match {subject}"
    if kind == CupKind.VOID:
        return f"ledger void of match {subject}"
    return f"ledger reset opening season {subject}"


def _ledger_key(row: LedgerRow) -> LedgerKey:
    if row.match_id is None:  # a reset (constraint a_match_unless_a_reset)
        return (CupKind.SEASON_RESET, row.season, row.player_id)
    return (row.kind, row.match_id, row.player_id)  # the kind's text equals its CupKind


RANK_BITS = 32
RANK_MASK = (1 << RANK_BITS) - 1
CUPS_BIAS = 1 << 31


def _board_key(player_id: int, entry: BoardEntry, stored_rank: int) -> int:
    """One int that sorts in leaderboard order (``players.models.LEADERBOARD_ORDER``: more
    cups, earlier change, lower id) and carries the stored rank (0: none) in its low bits."""
    at = entry.cups_changed_at
    micros = 0 if at is None else at + (1 << 62)
    key = (((CUPS_BIAS - entry.cups) << 64) | micros) << RANK_BITS | player_id
    return key << RANK_BITS | stored_rank


class LadderCheck:
    """The ladder's figures: each player's cups fields, board season, all-time statistics,
    season rows, ledger rows and frozen standings, then the standings' ranks and the current
    season's board counts. ``season``: only that season's figures."""

    def __init__(self, history: History, season: int | None) -> None:
        self.history = history
        self.only = season
        self.current = history.current
        self.counted: Counter[int] = Counter()
        self.stored_board = stored_board(self.current) if self._in_scope(self.current) else None
        """The board's counts as stored before any chunk is read (``--fix`` moves them)."""
        self.boards: dict[int, list[int]] = {
            number: [] for number in history.reset_floors if season is None or number == season
        }

    def _in_scope(self, season: int) -> bool:
        return self.only is None or self.only == season

    def player(self, rows: PlayerRows, report: Report, repair: ChunkRepair | None) -> None:
        player, replay, label = rows.player, rows.replay, rows.label
        current = self.only is None or self.only == self.current
        if current:
            fields_differ = False
            stored = {name: getattr(player, name) for name in CUP_FIELDS}
            for name in CUP_FIELDS:
                if stored[name] != getattr(replay, name):
                    fields_differ = True
                    was, now = stored[name], getattr(replay, name)
                    if name == "cups_changed_at":
                        was, now = _time(was), _time(now)
                    report(Difference(label, name, was, now))
        if self.only is None:
            stats_rows = rows.rows["stats"]
            stored_stats = stats_rows[0][1 : 1 + len(STAT_FIELDS)] if stats_rows else ()
            stored_stats = stored_stats or (0,) * len(STAT_FIELDS)
            if tuple(replay.stats) != tuple(stored_stats):
                for name, was, now in zip(STAT_FIELDS, stored_stats, replay.stats, strict=True):
                    if was != now:
                        report(Difference(label, name, was, now))
                if repair is not None:
                    repair.stats[player.id] = dict(zip(STAT_FIELDS, replay.stats, strict=True))
        on_board = self._on_current_board(player, replay)
        if current:
            board_season = self._board_season(player, on_board)
            if board_season != player.board_season and may_be_on_a_board(player):
                fields_differ = True
                report(Difference(label, "board_season", player.board_season, board_season))
            if on_board:
                self.counted[replay.cups] += 1
            if fields_differ and repair is not None:
                repair.players.append(
                    Player(
                        pk=player.id,
                        cups=replay.cups,
                        best_cups=replay.best_cups,
                        cups_changed_at=_time(replay.cups_changed_at),
                        board_season=board_season,
                        is_bot=player.is_bot,
                        is_banned=player.is_banned,
                    )
                )
        self._seasons(rows, report, repair)
        self._ledger(rows, report, repair)
        self._standings(rows, report)

    def _on_current_board(self, player: PlayerRow, replay: PlayerReplay) -> bool:
        """Whether the replay puts the player on the current season's board: a human with no
        ban and a ranked match of the season that counts (KORT_RULES §10, §11)."""
        row = replay.seasons.get(self.current)
        return (
            may_be_on_a_board(player)
            and row is not None
            and counts_for_the_board(row.ranked_played)
        )

    def _board_season(self, player: PlayerRow, on_board: bool) -> int | None:
        """The current season while on its board; otherwise what is stored, unless it claims
        the current board."""
        if on_board:
            return self.current
        return None if player.board_season == self.current else player.board_season

    def _seasons(self, rows: PlayerRows, report: Report, repair: ChunkRepair | None) -> None:
        names = [*STAT_FIELDS, *SEASON_FIELDS]
        stored = {
            row[2]: dict(zip(names, row[3 : 3 + len(names)], strict=True))
            for row in rows.rows["seasons"]
            if self._in_scope(row[2])
        }
        replayed = {
            number: totals.values()
            for number, totals in rows.replay.seasons.items()
            if self._in_scope(number)
        }
        pid = rows.player.id
        for number in sorted(stored.keys() | replayed.keys()):
            found = _compared(
                f"{rows.label}, season {number}",
                stored.get(number),
                replayed.get(number),
                SEASON_NAMED_BY,
            )
            for difference in found:
                report(difference)
            if found and repair is not None:
                if number in replayed:
                    repair.seasons[pid, number] = replayed[number]
                else:
                    repair.stale_seasons.append((pid, number))

    def _ledger(self, rows: PlayerRows, report: Report, repair: ChunkRepair | None) -> None:
        if self.only is None:
            stored = {
                _ledger_key(row): row[5:7] + row[7:8] + row[4:5] for row in rows.rows["ledger"]
            }
            replayed = rows.replay.ledger
        else:
            stored = {
                _ledger_key(row): row[5:7] + row[7:8] + row[4:5]
                for row in rows.rows["ledger"]
                if row.season == self.only
            }
            replayed = {k: v for k, v in rows.replay.ledger.items() if v[3] == self.only}
        if stored == replayed:
            return
        for key in sorted(stored.keys() | replayed.keys(), key=_ledger_order):
            was, now = stored.get(key), replayed.get(key)
            found = _compared(
                f"{_ledger_label(key)}, {rows.label}",
                None if was is None else dict(zip(LEDGER_FIELDS, was, strict=True)),
                None if now is None else dict(zip(LEDGER_FIELDS, now, strict=True)),
                LEDGER_NAMED_BY,
            )
            for difference in found:
                if difference.field == "created_at":
                    difference = replace(
                        difference,
                        stored=_time(difference.stored),  # type: ignore[arg-type]
                        recomputed=_time(difference.recomputed),  # type: ignore[arg-type]
                    )
                report(difference)
            if found and repair is not None:
                if now is not None:
                    values = dict(zip(LEDGER_FIELDS, now, strict=True))
                    repair.ledger[key] = {**values, "created_at": _time(values["created_at"])}
                else:
                    repair.stale_ledger.append(key)

    def _standings(self, rows: PlayerRows, report: Report) -> None:
        """The player's rows of the finalized seasons' standings, but their ranks (which
        :meth:`finish` checks): the players the standings hold and, besides them, those on
        the board at the end and not banned now (a ban is not part of the history)."""
        player, replay = rows.player, rows.replay
        stored = {
            row[1]: dict(zip(STANDING_FIELDS, row[2:7], strict=True))
            for row in rows.rows["standings"]
            if row[1] in self.boards
        }
        for number in sorted(stored.keys() | replay.boards.keys()):
            if number not in self.boards:
                continue
            entry = replay.boards.get(number)
            mine = stored.get(number)
            if entry is not None and mine is None and player.is_banned:
                entry = None
            subject = f"standings of season {number}, {rows.label}"
            if entry is None:
                if mine is not None:
                    for difference in _compared(subject, mine, None, STANDING_NAMED_BY):
                        report(replace(difference, frozen=True))
                continue
            self.boards[number].append(_board_key(player.id, entry, mine["rank"] if mine else 0))
            if mine is None:
                report(Difference(subject, "cups", None, entry.cups, frozen=True))
                continue
            for name in STANDING_FIELDS[1:]:
                if mine[name] != getattr(entry, name):
                    report(Difference(subject, name, mine[name], getattr(entry, name), True))

    def finish(self, report: Report) -> None:
        for number, keys in sorted(self.boards.items()):
            keys.sort()
            wrong: list[tuple[int, int | None, int]] = []
            for rank, key in enumerate(keys, start=1):
                stored_rank = key & RANK_MASK
                if stored_rank != rank:
                    wrong.append(((key >> RANK_BITS) & RANK_MASK, stored_rank or None, rank))
            keys.clear()
            for start in range(0, len(wrong), CHUNK):
                batch = wrong[start : start + CHUNK]
                names = dict(
                    Player.objects.filter(pk__in=[pid for pid, _, _ in batch]).values_list(
                        "pk", "username"
                    )
                )
                for pid, was, rank in batch:
                    subject = f"standings of season {number}, {_player_label(pid, names[pid])}"
                    report(Difference(subject, "rank", was, rank, frozen=True))
        if self.only is None or self.only == self.current:
            found = board_differences(self.current, self.counted, self.stored_board)
            for cups, stored, recomputed in found:
                report(
                    Difference(
                        f"board of season {self.current}"
                        + ("" if cups is None else f", {cups} cups"),
                        "players" if cups is not None else "total",
                        stored,
                        recomputed,
                    )
                )


CHECKS: list[Callable[[History, int | None], Check]] = [LadderCheck]
"""The checks each player's rows are fed to, in order (see the module's docstring)."""


# --- the run --------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What a run found: how many differences, how many of them in frozen standings."""

    differences: int = 0
    frozen: int = 0


def _player_chunk(cursor, times: Times, after: int, chunk: int, lock: bool) -> list[PlayerRow]:
    table = _table(Player)
    rows = _fetch(
        cursor,
        f'SELECT "id", "username", "is_bot", "is_banned", "cups", "best_cups", '
        f'{times.read(CHANGED_AT)}, "board_season" FROM {table} WHERE "id" > %s '
        f'ORDER BY "id" LIMIT {chunk}' + (" FOR NO KEY UPDATE" if lock and _locks(cursor) else ""),
        [after],
    )
    micros = times.converter()
    return [PlayerRow._make([*row[:6], micros(row[6]), row[7]]) for row in rows]


CHANGED_AT = '"cups_changed_at"'


def _chunk_rows(
    cursor, times: Times, players: list[PlayerRow], all_streams: list[Stream], chunk: int
) -> Iterator[tuple[PlayerRow, dict[str, list]]]:
    """Each player of ``players`` with their rows of every stream: a merge join of the
    streams, each read in player id order."""
    first, last = players[0].id, players[-1].id
    readers = {s.name: _Grouped(s.rows(cursor, times, first, last, chunk)) for s in all_streams}
    for player in players:
        yield player, {name: reader.take(player.id) for name, reader in readers.items()}


class _Grouped:
    """A stream's reads, taken player by player (rows are ordered by player id first): the
    rows of the reads so far by player, until a player's are taken."""

    def __init__(self, reads: Iterator[list]) -> None:
        self.reads = reads
        self.groups: dict[int, list] = {}
        self.last = -1
        self.done = False

    def take(self, player_id: int) -> list:
        while not self.done and self.last <= player_id:
            rows = next(self.reads, None)
            if not rows:
                self.done = True
                break
            for key, group in groupby(rows, key=itemgetter(0)):
                self.groups.setdefault(key, []).extend(group)
            self.last = rows[-1][0]
        return self.groups.pop(player_id, [])


def ladder_rebuild(
    *,
    fix: bool,
    report: Report,
    season: int | None = None,
    chunk: int = CHUNK,
    progress: Callable[[int], Callable[[int], None]] | None = None,
) -> Outcome:
    """Replay the history player by player, hand every difference from what is stored to
    ``report`` as it is found, and return how many there were; with ``fix``, also write the
    replay, one transaction per chunk of ``chunk`` players (standings excepted), then count
    the current season's board again. ``season``: only that season's figures (its season
    rows, ledger rows and standings; for the current season also the players' cups fields,
    board season and the board's counts), as a warning of the read path asks. Without
    ``season``, the figures of KORT_RULES §12 are checked (and fixed) last
    (``stats.rebuild_pairs``); a check that found the ladder wrong leaves them out, as their
    cups are read from the ledger that ``--fix`` writes first.

    ``progress(total)`` may return a function called with the players of each chunk done
    (e.g. a progress bar's ``update``).

    Raises:
        Conflict: a season's end is running; its resets are half written.
    """
    _running_end()
    history = stored_history()
    checks = [make(history, season) for make in CHECKS]
    outcome = Outcome()

    def counted(difference: Difference) -> None:
        outcome.differences += 1
        outcome.frozen += difference.frozen
        report(difference)

    connection = connections[router.db_for_write(Player)]
    times = Times(connection)
    all_streams = streams(times) + [make(times) for make in STREAMS]
    done = progress(Player.objects.count()) if progress else None
    written = False
    after = 0
    while True:
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            if fix:
                _running_end()
            players = _player_chunk(cursor, times, after, chunk, lock=fix)
            if not players:
                break
            if fix:
                _stats_locked(cursor, players[0].id, players[-1].id)
            repair = ChunkRepair() if fix else None
            for player, rows in _chunk_rows(cursor, times, players, all_streams, chunk):
                resets = {
                    row.season: row.created_at
                    for row in rows["ledger"]
                    if row.kind == CupKind.SEASON_RESET
                }
                replay = player_replay(player, rows["seats"], resets, history)
                fed = PlayerRows(player, rows, replay)
                for check in checks:
                    check.player(fed, counted, repair)
            if repair:
                written = True
                _repaired(repair, history.current)
        after = players[-1].id
        if done:
            done(len(players))
    before = outcome.differences
    for check in checks:
        check.finish(counted)
    if fix and (written or outcome.differences > before):
        with transaction.atomic(using=connection.alias):
            locked = BoardTotal.objects.select_for_update().filter(season=history.current)
            list(locked.values_list("pk"))
            ladder_repair(
                LadderRepair(
                    players=[],
                    fields=CUP_FIELDS,
                    stats={},
                    seasons={},
                    stale_seasons=(),
                    ledger={},
                    stale_ledger=(),
                    season=history.current,
                    recount=True,
                )
            )
    if season is None and (fix or not outcome.differences):
        # The §12 cups are read from the ledger: checked once the ledger holds no difference.
        pairs_rebuild(
            lambda found: counted(
                Difference(found.subject, found.field, found.stored, found.recomputed)
            ),
            cups=SEAT_CUPS,
            fix=fix,
            progress=progress,
        )
    return outcome


SEAT_CUPS = (
    f'SELECT c."delta" FROM {_table(CupChange)} AS c WHERE c."match_id" = s."match_id" '
    f'AND c."player_id" = s."player_id" AND c."kind" = \'{CupKind.MATCH.value}\''
)
"""The cups the player of a seat ``s`` got from its match, read by the ledger's key: what
``stats.rebuild_pairs`` sums for the §12 figures."""


def _running_end() -> None:
    running = Q(status=SeasonStatus.FINALIZING) | Q(reset_floor__isnull=False)
    if Season.objects.filter(running).exists():
        raise Conflict("season", "a season's end is running; rebuild once it is finalized")


def _stats_locked(cursor, first: int, last: int) -> None:
    """Lock the statistics rows of the players ``first`` to ``last``, in player id order."""
    if not _locks(cursor):
        return  # SQLite: the transaction holds the database
    cursor.execute(
        f'SELECT "player_id" FROM {_table(PlayerStats)} WHERE "player_id" BETWEEN %s AND %s '
        'ORDER BY "player_id" FOR UPDATE',
        [first, last],
    )


def _repaired(repair: ChunkRepair, season: int) -> None:
    ladder_repair(
        LadderRepair(
            players=repair.players,
            fields=CUP_FIELDS,
            stats=repair.stats,
            seasons=repair.seasons,
            stale_seasons=repair.stale_seasons,
            ledger=repair.ledger,
            stale_ledger=repair.stale_ledger,
            season=season,
        )
    )


def _locks(cursor) -> bool:
    """Whether the database locks rows (PostgreSQL; SQLite locks the whole database)."""
    return cursor.db.vendor == "postgresql"

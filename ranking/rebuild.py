"""Rebuild the ladder from its history (KORT_RULES §7, §8, §10, §11, §12; ``manage.py
rebuild_ladder``).

Every stored figure of the ladder belongs to one player and follows from that player's own
history, so the rebuild replays it player by player. Players are read in id order, a chunk at a
time, and beside them, in the same order, every stored row of theirs (statistics all time, per
season and per mode, ledger rows, frozen standings, pair and streak rows) and their seats in
finalized and voided matches, with the matches' rounds and other seats: one query per kind of
row and chunk, fetched at most :data:`CHUNK` rows at a time (a server-side cursor on
PostgreSQL). Memory holds a fetch and one player's history; time grows with the rows.

Each player's events are folded with ``ranking.fold.step``, the step the ladder's writer
applies, in the order it applied them: season by season, the reset that opened a season
first, then its matches at their finalization time (their effect: ``ranking.effects``) and
voids at theirs. The rows of the steps add up to the player's totals, ledger rows and
statistics (all time, per season, per mode). Their finalized, not void, matches give the
figures of §12: partners and opponents as the writer counts them
(``stats.services.pair_rows``), and streaks folded in completion order, then match id
(``stats.services.streaks_after``). Each figure is compared with the stored one and every
difference reported as it is found. A finalized season's frozen standings are checked
against the replay's board at the season's end (their ranks once every player is read), the
current season's board counts against the replayed players.

``--fix`` writes each chunk's differences through ``ranking.ladder.ladder_repair`` in one
transaction per chunk, which first locks the chunk's players (in id order) and their
statistics rows, as finalization does, then reads their history: a finalization that runs
meanwhile waits, or is read. Once every chunk is written, the board is counted again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import astuple, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from operator import add, itemgetter, sub
from typing import Any, NamedTuple

from django.db import connections, router, transaction
from django.db.models import Model, Q

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
from ranking.ladder import TOTALS, LadderRepair, LedgerKey, ladder_repair
from ranking.models import BoardTotal, CupChange, CupKind, SeasonEnd, SeasonStanding
from seasons.models import Season, SeasonStatus
from stats.models import (
    ALL_SEASONS,
    ModeStats,
    PairFigures,
    PlayerStats,
    SeasonStats,
    StreakFigures,
    counts_for_the_board,
)
from stats.services import (
    PAIR_COUNTS,
    STREAK_COUNTS,
    MatchTable,
    PlayerFigures,
    StreakState,
    pair_rows,
    stats_values,
    streaks_after,
)

CHUNK = 2000
"""Players a chunk holds, and rows one read fetches at most."""
STAT_FIELDS = tuple(stats_values(StatsLine()))
"""The statistics' count columns, in the order they are compared and shown."""
SEASON_FIELDS = ("ranked_played", "ranked_won", "cups", "best_cups")
LEDGER_FIELDS = ("delta", "created_at", "cups_after", "season")
STANDING_FIELDS = ("rank", "cups", "best_cups", "matches_played", "matches_won")
KIND_ORDER = {CupKind.MATCH: 0, CupKind.VOID: 1, CupKind.SEASON_RESET: 2}
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Difference:
    """A stored value that the replay does not reach. ``subject`` names the player or the
    row; ``None`` stands for a missing row (stored) or a row that should not exist
    (recomputed). ``frozen``: in a finalized season's standings, never rewritten."""

    subject: str
    field: str
    stored: object
    recomputed: object
    frozen: bool = False

    def __str__(self) -> str:
        shown = [
            "none" if value is None else value.isoformat() if isinstance(value, datetime) else value
            for value in (self.stored, self.recomputed)
        ]
        return f"{self.subject}: {self.field} stored {shown[0]}, recomputed {shown[1]}"


Report = Callable[[Difference], None]


# --- the reads ------------------------------------------------------------------------------


class PlayerRow(NamedTuple):
    id: int
    username: str
    is_bot: bool
    is_banned: bool
    cups: int
    best_cups: int
    cups_changed_at: datetime | None
    board_season: int | None


class SeatRow(NamedTuple):
    """A seat of the player in a finalized or voided match, with the match's facts."""

    player_id: int
    match_id: int
    seat: int
    mode: str
    status: str
    winner: str
    wins_a: int
    wins_b: int
    season: int
    finalized_at: Any
    void_season: int | None
    voided_at: Any
    completed_at: Any


def _table(model: type[Model]) -> str:
    return f'"{model._meta.db_table}"'


def _reads(only: int | None) -> dict[str, str]:
    """The SQL of each kind of row read beside the players (of ids between its two
    parameters), ordered by player id first; with ``only`` (a season), those it checks."""
    counts = ", ".join(f'"{name}"' for name in STAT_FIELDS)
    seated = (
        f'FROM {_table(Seat)} AS s JOIN {_table(Match)} AS m ON m."id" = s."match_id" {{}} '
        f'WHERE s."player_id" BETWEEN %s AND %s AND m."status" IN '
        f"('{MatchStatus.FINALIZED.value}', '{MatchStatus.VOID.value}') ORDER BY s.\"player_id\""
    )

    def own(model: type[Model], columns: str) -> str:
        return (
            f'SELECT "player_id", {columns} FROM {_table(model)} '
            'WHERE "player_id" BETWEEN %s AND %s ORDER BY "player_id"'
        )

    reads = {
        "seasons": own(SeasonStats, f'"season", {counts}, {", ".join(SEASON_FIELDS)}'),
        "ledger": own(
            CupChange, '"kind", "match_id", "season", "delta", "created_at", "cups_after"'
        ),
        "standings": own(SeasonStanding, '"season_id", ' + ", ".join(STANDING_FIELDS)),
        "seats": 'SELECT s."player_id", s."match_id", s."seat", m."mode", m."status", '
        'm."winner", m."wins_a", m."wins_b", m."season", m."finalized_at", m."void_season", '
        'm."voided_at", m."completed_at" ' + seated.format(""),
        "rounds": 'SELECT s."player_id", r."match_id", r."trump_seat", r."outcome", r."winner", '
        'r."wins_awarded", r."shutout_team" '
        + seated.format(
            f'JOIN {_table(Round)} AS r ON r."match_id" = s."match_id" '
            f"AND r.\"status\" = '{RoundStatus.FINISHED.value}'"
        )
        + ', r."match_id", r."number"',
    }
    if only is not None:
        return reads
    return reads | {
        "stats": own(PlayerStats, counts),
        "modes": own(ModeStats, f'"season", "mode", {counts}'),
        "pairs": own(
            PairFigures, '"side", "season", "mode", "other_id", ' + ", ".join(PAIR_COUNTS)
        ),
        "streaks": own(
            StreakFigures, '"season", "mode", ' + ", ".join(STREAK_COUNTS) + ', "last_match"'
        ),
        "mates": 'SELECT s."player_id", s."match_id", x."player_id", x."seat" '
        + seated.format(
            f'JOIN {_table(Seat)} AS x ON x."match_id" = s."match_id" '
            'AND x."player_id" <> s."player_id"'
        ),
    }


def _fetch(cursor: Any, sql: str, size: int) -> list[tuple]:
    """One read of the query ``sql`` that ``cursor`` runs: its next ``size`` rows at most."""
    return cursor.fetchmany(size)


def _rows(cursor: Any, sql: str, params: list, size: int) -> Iterator[tuple]:
    cursor.execute(sql, params)
    while rows := _fetch(cursor, sql, size):
        yield from rows


class _Taken:
    """Rows ordered by player id first, taken player by player in id order."""

    def __init__(self, rows: Iterator[tuple]) -> None:
        self.rows = rows
        self.next = next(rows, None)

    def take(self, player_id: int) -> list[tuple]:
        taken = []
        while self.next is not None and self.next[0] <= player_id:
            if self.next[0] == player_id:
                taken.append(self.next)
            self.next = next(self.rows, None)
        return taken


def _time_of(connection: Any) -> Callable[[Any], Any]:
    """What makes a time column, as plain SQL reads it, an aware time (SQLite reads text)."""
    if connection.vendor == "postgresql":
        return lambda value: value
    convert = connection.ops.convert_datetimefield_value
    return lambda value: None if value is None else convert(value, None, connection)


# --- one player's replay --------------------------------------------------------------------


@dataclass(frozen=True)
class History:
    """What every replay reads besides the player's rows: each finalized season's reset floor
    and end time, and the current season."""

    reset_floors: dict[int, int]
    finalized_at: dict[int, datetime]
    current: int


def stored_history() -> History:
    ends = SeasonEnd.objects.filter(season__status=SeasonStatus.FINALIZED)
    return History(
        reset_floors=dict(ends.values_list("season_id", "reset_floor")),
        finalized_at=dict(ends.values_list("season_id", "season__finalized_at")),
        current=current_season_number(),
    )


class BoardEntry(NamedTuple):
    """A player's row of a season's board at the season's end, as the replay finds it."""

    cups: int
    cups_changed_at: datetime | None
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
class Replay:
    """One player's ladder recomputed from their history: the rows of ``ranking.fold``'s steps
    added up as the writer adds them (the state, all-time statistics in :data:`STAT_FIELDS`
    order, season rows by season, ledger values by :data:`LedgerKey`), their entry on each
    finalized season's board at its end, and their statistics per mode and §12 figures."""

    player_id: int
    state: PlayerLadder = field(default_factory=PlayerLadder)
    stats: list[int] = field(default_factory=lambda: [0] * len(STAT_FIELDS))
    seasons: dict[int, SeasonTotals] = field(default_factory=dict)
    ledger: dict[LedgerKey, tuple] = field(default_factory=dict)
    boards: dict[int, BoardEntry] = field(default_factory=dict)
    figures: PlayerFigures = field(default_factory=PlayerFigures)

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
                modes = self.figures.modes
                for key in ((ALL_SEASONS, row.mode), (row.season, row.mode)):
                    modes[key] = list(map(combine, modes.get(key, ZEROS), row.line))
                if row.ranked:
                    totals.ranked_played += row.sign * row.line[0]
                    totals.ranked_won += row.sign * row.line[1]

    def board_entry(self, season: int) -> None:
        """The player's entry on the board of ``season`` at its end, if they are on it."""
        row = self.seasons.get(season)
        if row is not None and counts_for_the_board(row.ranked_played):
            self.boards[season] = BoardEntry(
                self.state.cups, self.state.changed_at, row.best_cups, *astuple(row)[3:]
            )


ZEROS = (0,) * len(STAT_FIELDS)
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


def player_replay(player: PlayerRow, rows: dict[str, list], history: History) -> Replay:
    """Fold the player's matches (``rows["seats"]`` with ``rows["rounds"]``) and voids and the
    season ends of ``history`` with ``ranking.fold.step``, in the order they were applied
    (season by season; a season's reset first, stamped as its stored row is, then its events
    in time order), and count their finalized, not void, matches in the §12 figures (with the
    other seats, ``rows["mates"]``, when read). Bots get nothing."""
    replay = Replay(player.id)
    if player.is_bot:
        return replay
    rounds: dict[int, list] = {}
    for row in rows["rounds"]:
        rounds.setdefault(row[1], []).append(row[2:])
    mates: dict[int, list] = {}
    for row in rows.get("mates", ()):
        mates.setdefault(row[1], []).append((row[2], team_of(row[3])))
    events: list[tuple[tuple, Event | None]] = []
    runs: dict[tuple[int, str], list] = {}
    for seat in map(SeatRow._make, rows["seats"]):
        cups, line = seat_effect(seat, tuple(rounds.get(seat.match_id, ())))
        at, number = seat.finalized_at, seat.season
        finalized = Finalized(seat.match_id, number, seat.mode, line, cups, at, number)
        events.append(((number, 1, at, 0, seat.match_id), finalized))
        if seat.status == MatchStatus.VOID:
            assert seat.void_season is not None  # constraint void_iff_voided
            voided = Voided(
                seat.match_id, number, seat.mode, line, cups, seat.voided_at, seat.void_season, True
            )
            events.append(((seat.void_season, 1, seat.voided_at, 1, seat.match_id), voided))
        elif seat.match_id in mates:
            teams = dict([(player.id, team_of(seat.seat)), *mates[seat.match_id]])
            table = MatchTable(
                seat.match_id, seat.completed_at, number, Mode(seat.mode), Team(seat.winner),
                teams, [player.id], {} if cups is None else {player.id: cups},
            )  # fmt: skip
            for pair in pair_rows(table):
                key = (pair["side"], pair["season"], pair["mode"], pair["other_id"])
                held = replay.figures.pairs.setdefault(key, [0, 0, 0])
                held[:] = [n + pair[name] for n, name in zip(held, PAIR_COUNTS, strict=True)]
            for variant in table.variants():
                runs.setdefault(variant, []).append(((seat.completed_at, seat.match_id), table))
    for season in history.reset_floors:
        events.append(((season + 1, 0), None))
    events.sort(key=itemgetter(0))
    resets = {row[3]: row[5] for row in rows["ledger"] if row[1] == CupKind.SEASON_RESET}
    for key, event in events:
        if event is None:
            season = key[0] - 1
            replay.board_entry(season)
            at = resets.get(season + 1, history.finalized_at[season])
            event = SeasonReset(season + 1, history.reset_floors[season], at)
        replay.step(event)
    for variant, matches in runs.items():
        state, ended = StreakState(), []
        for key, table in sorted(matches, key=itemgetter(0)):
            state = streaks_after(state, key, table.won(player.id))
            ended += state.ended
        replay.figures.streaks[variant] = replace(state, ended=ended)
    return replay


# --- the comparison -------------------------------------------------------------------------


def _compared(subject: str, stored: dict | None, recomputed: dict | None, named_by: tuple) -> list:
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


def _ledger_key(row: tuple) -> LedgerKey:
    _, kind, match_id, season, *_ = row
    if match_id is None:  # a reset (constraint a_match_unless_a_reset)
        return (CupKind.SEASON_RESET, season, row[0])
    return (kind, match_id, row[0])  # the kind's text equals its CupKind


def _ledger_label(key: LedgerKey) -> str:
    kind, subject, _ = key
    if kind == CupKind.MATCH:
        return f"ledger match {subject}"
    if kind == CupKind.VOID:
        return f"ledger void of match {subject}"
    return f"ledger reset opening season {subject}"


RANK_BITS = 32
RANK_MASK = (1 << RANK_BITS) - 1
CUPS_BIAS = 1 << 31


def _board_key(player_id: int, entry: BoardEntry, stored_rank: int) -> int:
    """One int that sorts in leaderboard order (``players.models.LEADERBOARD_ORDER``: more
    cups, earlier change, lower id) and carries the stored rank (0: none) in its low bits."""
    at = entry.cups_changed_at
    micros = 0 if at is None else (at - EPOCH) // timedelta(microseconds=1) + (1 << 62)
    key = (((CUPS_BIAS - entry.cups) << 64) | micros) << RANK_BITS | player_id
    return key << RANK_BITS | stored_rank


def _variant(season: int, mode: str) -> str:
    return f"{'all time' if season == ALL_SEASONS else f'season {season}'}, {mode}"


FIGURES = (
    ("pairs", "matches, won, cups", lambda k: f"{k[0]} {k[3]} ({_variant(k[1], k[2])})", tuple),
    ("streaks", ", ".join((*STREAK_COUNTS, "last_match")), lambda k: f"streaks ({_variant(*k)})",
     tuple),
    ("modes", "counts", lambda k: f"statistics ({_variant(*k)})",
     lambda values: dict(zip(STAT_FIELDS, values, strict=True))),
)  # fmt: skip
"""The §12 figures and the statistics per mode, in the order a player's differences are
reported: the rows' name, the field shown, the subject by the row's key, the values shown."""


def _figures(replay: Replay) -> dict[str, dict[tuple, tuple]]:
    """The replay's §12 figures and statistics per mode by :data:`FIGURES`' name and key."""
    figures = replay.figures
    return {
        "pairs": {key: tuple(counts) for key, counts in figures.pairs.items()},
        "streaks": {
            key: (*astuple(state.streaks), state.current.last[1])
            for key, state in figures.streaks.items()
            if state.current is not None
        },
        "modes": {key: tuple(counts) for key, counts in figures.modes.items() if any(counts)},
    }


class LadderCheck:
    """Compares each replayed player with their stored rows (in id order), then the standings'
    ranks and the current season's board. ``only``: that season's figures alone."""

    def __init__(self, history: History, only: int | None, report: Report) -> None:
        self.history, self.only, self.report = history, only, report
        self.current = history.current
        self.counted: Counter[int] = Counter()
        self.stored_board = stored_board(self.current) if self._in_scope(self.current) else None
        """The board's counts as stored before any chunk is read (``--fix`` moves them)."""
        self.boards: dict[int, list[int]] = {
            n: [] for n in history.reset_floors if self._in_scope(n)
        }

    def _in_scope(self, season: int) -> bool:
        return self.only is None or self.only == season

    def player(self, player: PlayerRow, rows: dict[str, list], repair: LadderRepair | None) -> None:
        """Report the player's differences; add what to write to ``repair`` (``--fix``)."""
        replay = player_replay(player, rows, self.history)
        label = f"player {player.username} (id {player.id})"
        found: list[Difference] = []
        if self._in_scope(self.current):
            state = replay.state
            for name, now in zip(
                TOTALS, (state.cups, state.best_cups, state.changed_at), strict=True
            ):
                if getattr(player, name) != now:
                    found.append(Difference(label, name, getattr(player, name), now))
        if self.only is None:
            stored = rows["stats"][0][1:] if rows["stats"] else ZEROS
            for name, was, now in zip(STAT_FIELDS, stored, replay.stats, strict=True):
                if was != now:
                    found.append(Difference(label, name, was, now))
            if found and found[-1].field in STAT_FIELDS and repair is not None:
                repair.stats[player.id] = dict(zip(STAT_FIELDS, replay.stats, strict=True))
        on_board = self._on_current_board(player, replay)
        if self._in_scope(self.current):
            board_season = self.current if on_board else player.board_season
            if not on_board and board_season == self.current:
                board_season = None
            if board_season != player.board_season and may_be_on_a_board(player):
                found.append(Difference(label, "board_season", player.board_season, board_season))
            if on_board:
                self.counted[replay.state.cups] += 1
            if repair is not None and any(d.field in (*TOTALS, "board_season") for d in found):
                repair.players.append(
                    Player(
                        pk=player.id, cups=replay.state.cups, best_cups=replay.state.best_cups,
                        cups_changed_at=replay.state.changed_at, board_season=board_season,
                        is_bot=player.is_bot, is_banned=player.is_banned,
                    )
                )  # fmt: skip
        for difference in found:
            self.report(difference)
        self._seasons(player.id, label, rows, replay, repair)
        self._ledger(label, rows, replay, repair)
        self._standings(player, label, rows, replay)
        if self.only is None and not player.is_bot:
            self._figures(player.id, rows, replay, repair)

    def _on_current_board(self, player: PlayerRow, replay: Replay) -> bool:
        """Whether the replay puts the player on the current season's board: a human with no
        ban and a ranked match of the season that counts (KORT_RULES §10, §11)."""
        row = replay.seasons.get(self.current)
        return (
            may_be_on_a_board(player)
            and row is not None
            and counts_for_the_board(row.ranked_played)
        )

    def _seasons(
        self, pid: int, label: str, rows: dict, replay: Replay, repair: LadderRepair | None
    ) -> None:
        names = [*STAT_FIELDS, *SEASON_FIELDS]
        stored = {row[1]: dict(zip(names, row[2:], strict=True)) for row in rows["seasons"]}
        replayed = {number: totals.values() for number, totals in replay.seasons.items()}
        for number in sorted(stored.keys() | replayed.keys()):
            if not self._in_scope(number):
                continue
            was, now = stored.get(number), replayed.get(number)
            found = _compared(
                f"{label}, season {number}", was, now, ("matches_played", "ranked_played", "cups")
            )
            for difference in found:
                self.report(difference)
            if found and repair is not None:
                if now is not None:
                    repair.seasons[pid, number] = now
                else:
                    repair.stale_seasons.append((pid, number))

    def _ledger(self, label: str, rows: dict, replay: Replay, repair: LadderRepair | None) -> None:
        stored = {_ledger_key(row): (row[4], row[5], row[6], row[3]) for row in rows["ledger"]}
        replayed = replay.ledger
        if self.only is not None:
            stored = {key: values for key, values in stored.items() if values[3] == self.only}
            replayed = {key: values for key, values in replayed.items() if values[3] == self.only}
        if stored == replayed:
            return
        for key in sorted(
            stored.keys() | replayed.keys(), key=lambda k: (KIND_ORDER[CupKind(k[0])], k[1])
        ):
            was, now = (
                None if values is None else dict(zip(LEDGER_FIELDS, values, strict=True))
                for values in (stored.get(key), replayed.get(key))
            )
            found = _compared(f"{_ledger_label(key)}, {label}", was, now, ("delta", "created_at"))
            for difference in found:
                self.report(difference)
            if found and repair is not None:
                if now is not None:
                    repair.ledger[key] = now
                else:
                    repair.stale_ledger.append(key)

    def _standings(self, player: PlayerRow, label: str, rows: dict, replay: Replay) -> None:
        """The player's rows of the finalized seasons' standings, but their ranks (which
        :meth:`finish` checks): the players the standings hold and, besides them, those on
        the board at the end and not banned now (a ban is not part of the history)."""
        stored = {
            row[1]: dict(zip(STANDING_FIELDS, row[2:], strict=True)) for row in rows["standings"]
        }
        for number in sorted(stored.keys() | replay.boards.keys()):
            if number not in self.boards:
                continue
            entry, mine = replay.boards.get(number), stored.get(number)
            if entry is not None and mine is None and player.is_banned:
                entry = None
            subject = f"standings of season {number}, {label}"
            if entry is None:
                if mine is not None:
                    for difference in _compared(subject, mine, None, ("rank", "cups")):
                        self.report(replace(difference, frozen=True))
                continue
            self.boards[number].append(_board_key(player.id, entry, mine["rank"] if mine else 0))
            if mine is None:
                self.report(Difference(subject, "cups", None, entry.cups, frozen=True))
                continue
            for name in STANDING_FIELDS[1:]:
                if mine[name] != getattr(entry, name):
                    self.report(Difference(subject, name, mine[name], getattr(entry, name), True))

    def _figures(self, pid: int, rows: dict, replay: Replay, repair: LadderRepair | None) -> None:
        """The §12 figures and statistics per mode; a stored row whose counts are all 0 (left
        so by voids) holds no figure."""
        replayed = _figures(replay)
        stored = {
            "pairs": {tuple(row[1:5]): tuple(row[5:]) for row in rows["pairs"] if row[5]},
            "streaks": {
                tuple(row[1:3]): tuple(row[3:]) for row in rows["streaks"] if any(row[3:7])
            },
            "modes": {tuple(row[1:3]): tuple(row[3:]) for row in rows["modes"] if any(row[3:])},
        }
        differ = False
        for name, shown_field, subject, shown in FIGURES:
            was, now = stored[name], replayed[name]
            for key in sorted(was.keys() | now.keys()):
                if was.get(key) != now.get(key):
                    differ = True
                    values = [None if v is None else shown(v) for v in (was.get(key), now.get(key))]
                    self.report(Difference(f"player {pid}, {subject(key)}", shown_field, *values))
        if differ and repair is not None:
            repair.figures[pid] = replay.figures

    def finish(self) -> None:
        """Report the standings' ranks that differ, then the current board's counts."""
        for number, keys in sorted(self.boards.items()):
            keys.sort()
            wrong = [
                ((key >> RANK_BITS) & RANK_MASK, key & RANK_MASK or None, rank)
                for rank, key in enumerate(keys, start=1)
                if key & RANK_MASK != rank
            ]
            keys.clear()
            for start in range(0, len(wrong), CHUNK):
                batch = wrong[start : start + CHUNK]
                names = dict(
                    Player.objects.filter(pk__in=[pid for pid, _, _ in batch]).values_list(
                        "pk", "username"
                    )
                )
                for pid, was, rank in batch:
                    subject = f"standings of season {number}, player {names[pid]} (id {pid})"
                    self.report(Difference(subject, "rank", was, rank, frozen=True))
        if self._in_scope(self.current):
            for cups, stored, recomputed in board_differences(
                self.current, self.counted, self.stored_board
            ):
                subject = f"board of season {self.current}" + (
                    "" if cups is None else f", {cups} cups"
                )
                self.report(
                    Difference(subject, "total" if cups is None else "players", stored, recomputed)
                )


# --- the run --------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What a run found: how many differences, how many of them in frozen standings."""

    differences: int = 0
    frozen: int = 0


TIMES = {"ledger": (5,), "seats": (9, 11, 12)}
"""The time columns of each kind of row read (SQLite reads them as text)."""


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
    rows, ledger rows and standings; for the current season also the players' totals, board
    season and the board's counts), as a warning of the read path asks; the statistics all
    time and per mode and the §12 figures are checked without it.

    ``progress(total)`` may return a function called with the players of each chunk done
    (e.g. a progress bar's ``update``).

    Raises:
        Conflict: a season's end is running; its resets are half written.
    """
    _running_end()
    outcome = Outcome()

    def counted(difference: Difference) -> None:
        outcome.differences += 1
        outcome.frozen += difference.frozen
        report(difference)

    history = stored_history()
    check = LadderCheck(history, season, counted)
    connection = connections[router.db_for_write(Player)]
    time = _time_of(connection)
    reads = _reads(season)
    done = progress(Player.objects.count()) if progress else None
    postgresql = connection.vendor == "postgresql"
    written, after = False, 0
    while True:
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            if fix:
                _running_end()
            lock = " FOR NO KEY UPDATE" if fix and postgresql else ""
            sql = (
                'SELECT "id", "username", "is_bot", "is_banned", "cups", "best_cups", '
                f'"cups_changed_at", "board_season" FROM {_table(Player)} WHERE "id" > %s '
                f'ORDER BY "id" LIMIT {chunk}{lock}'
            )
            players = [
                PlayerRow(*row[:6], time(row[6]), row[7])
                for row in _rows(cursor, sql, [after], chunk)
            ]
            if not players:
                break
            first, last = players[0].id, players[-1].id
            if postgresql:
                # Read a chunk's rows by their indexes: priced at its default, a random read
                # costs four sequential ones, and whole tables would be read for each chunk.
                cursor.execute("SET LOCAL random_page_cost = 1.1")
                if fix:
                    cursor.execute(
                        f'SELECT "player_id" FROM {_table(PlayerStats)} WHERE "player_id" '
                        'BETWEEN %s AND %s ORDER BY "player_id" FOR UPDATE',
                        [first, last],
                    )
            repair = LadderRepair(history.current) if fix else None
            with ExitStack() as opened:
                streams = {}
                for name, sql in reads.items():
                    reader = opened.enter_context(connection.chunked_cursor())
                    streams[name] = _Taken(_rows(reader, sql, [first, last], chunk))
                for player in players:
                    rows = {name: stream.take(player.id) for name, stream in streams.items()}
                    for name, columns in TIMES.items():
                        rows[name] = [
                            tuple(time(v) if n in columns else v for n, v in enumerate(row))
                            for row in rows[name]
                        ]
                    check.player(player, rows, repair)
            if repair:
                written = True
                ladder_repair(repair)
        after = last
        if done:
            done(len(players))
    before = outcome.differences
    check.finish()
    if fix and (written or outcome.differences > before):
        with transaction.atomic(using=connection.alias):
            list(
                BoardTotal.objects.select_for_update()
                .filter(season=history.current)
                .values_list("pk")
            )
            ladder_repair(LadderRepair(history.current, recount=True))
    return outcome


def _running_end() -> None:
    running = Q(status=SeasonStatus.FINALIZING) | Q(reset_floor__isnull=False)
    if Season.objects.filter(running).exists():
        raise Conflict("season", "a season's end is running; rebuild once it is finalized")

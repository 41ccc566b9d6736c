"""Rebuild the ladder from its history (KORT_RULES §7, §8, §10, §11, §12; ``manage.py
rebuild_ladder``).

Every stored figure of the ladder belongs to one player and follows from that player's history,
so the rebuild replays it player by player. Players are read in id order, a chunk at a time,
and beside them every stored row of theirs and their seats in finalized and voided matches,
with the matches' rounds and other seats: one query per kind of row and chunk, fetched at most
a chunk of rows at a time (a server-side cursor on PostgreSQL). Memory holds a fetch and one
player's history; time grows with the rows.

A player's events are folded with ``ranking.fold.step`` as the ladder's writer applied them:
season by season, the reset that opened a season first, then its matches (their effect:
``ranking.effects``) and voids in time order. The steps' rows add up to the player's totals,
ledger rows and statistics all time, per season and per mode; their finalized, not void,
matches give their §12 partners and opponents (``stats.services.pair_rows``) and streaks
(``stats.services.streaks_after`` in completion order, then match id). Each is compared with
the stored figure and every difference reported as it is found; the finalized seasons' frozen
standings are checked against the replay's board at each season's end (their ranks once every
player is read), the current board's counts against the replayed players.

``--fix`` writes each chunk's differences through ``ranking.ladder.ladder_repair`` in one
transaction per chunk, which first locks the chunk's players and statistics rows in id order,
as finalization does (a finalization running meanwhile waits, or is read); then the board is
counted again.
"""

from __future__ import annotations

from collections import Counter, namedtuple
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
from ranking import fold
from ranking.board import board_differences, current_season_number, stored_board
from ranking.effects import MatchFacts, match_effect
from ranking.ladder import TOTALS, LadderRepair, LedgerKey, ladder_repair
from ranking.models import BoardTotal, CupChange, CupKind, SeasonEnd, SeasonStanding
from seasons.models import Season, SeasonStatus
from stats import models as tables
from stats.models import ALL_SEASONS
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
"""The statistics' count columns, in the order they are read, compared and shown."""
SEASON_FIELDS = (*STAT_FIELDS, "ranked_played", "ranked_won", "cups", "best_cups")
RANKED = len(STAT_FIELDS)
"""Where a season row's ``ranked_played`` stands in :data:`SEASON_FIELDS`."""
STANDING_FIELDS = ("rank", "cups", "best_cups", "matches_played", "matches_won")
ZEROS = (0,) * len(STAT_FIELDS)
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
        stored, recomputed = (
            "none" if v is None else v.isoformat() if isinstance(v, datetime) else v
            for v in (self.stored, self.recomputed)
        )
        return f"{self.subject}: {self.field} stored {stored}, recomputed {recomputed}"


Report = Callable[[Difference], None]


# --- the reads ------------------------------------------------------------------------------

SeatRow = namedtuple(
    "SeatRow",
    "player_id match_id seat mode status winner wins_a wins_b season finalized_at void_season "
    "voided_at completed_at",
)
"""A seat of the player in a finalized or voided match, with the match's facts."""
TIMES = {"ledger": (5,), "seats": (9, 11, 12)}
"""The time columns of each kind of row read (SQLite reads them as text)."""


def _table(model: type[Model]) -> str:
    return f'"{model._meta.db_table}"'


def _reads(only: int | None) -> dict[str, str]:
    """The SQL of each kind of row read beside a chunk of players (ids between its two
    parameters), ordered by player id first; with ``only`` (a season), those it checks."""
    seated = (
        f'FROM {_table(Seat)} AS s JOIN {_table(Match)} AS m ON m."id" = s."match_id" {{}} '
        f'WHERE s."player_id" BETWEEN %s AND %s AND m."status" IN '
        f"('{MatchStatus.FINALIZED.value}', '{MatchStatus.VOID.value}') ORDER BY s.\"player_id\""
    )

    def own(model: type[Model], *columns: str) -> str:
        names = ", ".join(f'"{name}"' for name in ("player_id", *columns))
        return (
            f"SELECT {names} FROM {_table(model)} "
            'WHERE "player_id" BETWEEN %s AND %s ORDER BY "player_id"'
        )

    rounds = (
        f'JOIN {_table(Round)} AS r ON r."match_id" = s."match_id" '
        f"AND r.\"status\" = '{RoundStatus.FINISHED.value}'"
    )
    reads = {
        "seasons": own(tables.SeasonStats, "season", *SEASON_FIELDS),
        "ledger": own(CupChange, "kind", "match_id", "season", "delta", "created_at", "cups_after"),
        "standings": own(SeasonStanding, "season_id", *STANDING_FIELDS),
        "seats": f"SELECT s.player_id, s.match_id, s.seat, m.{', m.'.join(SeatRow._fields[3:])} "
        + seated.format(""),
        "rounds": "SELECT s.player_id, r.match_id, r.trump_seat, r.outcome, r.winner, "
        f"r.wins_awarded, r.shutout_team {seated.format(rounds)}, r.match_id, r.number",
    }
    if only is not None:
        return reads
    return reads | {
        "stats": own(tables.PlayerStats, *STAT_FIELDS),
        "modes": own(tables.ModeStats, "season", "mode", *STAT_FIELDS),
        "pairs": own(tables.PairFigures, "side", "season", "mode", "other_id", *PAIR_COUNTS),
        "streaks": own(tables.StreakFigures, "season", "mode", *STREAK_COUNTS, "last_match"),
        "mates": "SELECT s.player_id, s.match_id, x.player_id, x.seat "
        + seated.format(f'JOIN {_table(Seat)} AS x ON x."match_id" = s."match_id"'),
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


BoardEntry = namedtuple("BoardEntry", "cups cups_changed_at best_cups matches_played matches_won")
"""A player's row of a season's board at the season's end, as the replay finds it."""


@dataclass
class Replay:
    """One player's ladder recomputed from their history: the rows of ``ranking.fold``'s steps
    added up as the writer adds them (the state, all-time statistics in :data:`STAT_FIELDS`
    order, season rows in :data:`SEASON_FIELDS` order by season, ledger rows' ``(delta,
    created_at, cups_after, season)`` by :data:`LedgerKey`), their entry on each finalized
    season's board at its end, and their statistics per mode and §12 figures."""

    player_id: int
    state: fold.PlayerLadder = field(default_factory=fold.PlayerLadder)
    stats: list[int] = field(default_factory=lambda: list(ZEROS))
    seasons: dict[int, list[int]] = field(default_factory=dict)
    ledger: dict[LedgerKey, tuple] = field(default_factory=dict)
    boards: dict[int, BoardEntry] = field(default_factory=dict)
    figures: PlayerFigures = field(default_factory=PlayerFigures)

    def step(self, event: fold.Event) -> None:
        """Fold ``event`` and add up its rows."""
        before = self.state.cups
        self.state, rows = fold.step(self.state, event)
        for row in rows:
            if isinstance(row, fold.Ledger):
                key = (row.kind, row.subject, self.player_id)
                self.ledger[key] = (row.delta, row.at, row.cups_after, row.season)
            elif isinstance(row, fold.SeasonOpened):
                self.seasons.setdefault(row.season, [*ZEROS, 0, 0, row.cups, row.cups])
            elif isinstance(row, fold.SeasonCups):
                season = self.seasons[row.season]
                season[-2:] = [row.cups, max(season[-1], row.cups)]
            elif isinstance(row, fold.StatsAdded):
                season = self.seasons.setdefault(row.season, [*ZEROS, 0, 0, before, before])
                combine = add if row.sign > 0 else sub
                self.stats = list(map(combine, self.stats, row.line))
                season[:RANKED] = map(combine, season[:RANKED], row.line)
                modes = self.figures.modes
                for key in ((ALL_SEASONS, row.mode), (row.season, row.mode)):
                    modes[key] = list(map(combine, modes.get(key, ZEROS), row.line))
                if row.ranked:
                    season[RANKED] += row.sign * row.line[0]
                    season[RANKED + 1] += row.sign * row.line[1]

    def board_entry(self, season: int) -> None:
        """The player's entry on the board of ``season`` at its end, if they are on it."""
        row = self.seasons.get(season)
        if row is not None and tables.counts_for_the_board(row[RANKED]):
            cups, at = self.state.cups, self.state.changed_at
            self.boards[season] = BoardEntry(cups, at, row[-1], row[RANKED], row[RANKED + 1])


EFFECTS_KEPT = 100_000
"""Distinct match shapes whose effect is kept (most matches repeat a few shapes)."""
_effects: dict[tuple, tuple[int | None, tuple[int, ...]]] = {}


def seat_effect(seat: SeatRow, rounds: tuple) -> tuple[int | None, tuple[int, ...]]:
    """What the match of ``seat`` gave its player: cups (None unranked) and the statistics
    line in :data:`STAT_FIELDS` order (``ranking.effects.match_effect``, computed once per
    shape of match: mode, winner, wins, rounds and the player's team)."""
    team = team_of(seat.seat)
    key = (seat.mode, seat.winner, seat.wins_a, seat.wins_b, rounds, team)
    if (effect := _effects.get(key)) is None:
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


def player_replay(player: Player, rows: dict[str, list], history: History) -> Replay:
    """Fold the player's matches (``rows["seats"]`` with ``rows["rounds"]``), voids and the
    season ends of ``history`` with ``ranking.fold.step`` in the order they were applied
    (season by season; a season's reset first, stamped as its stored row is, then its events
    in time order), and count their finalized matches in their §12 figures (with the seats of
    each, ``rows["mates"]``, when read). Bots get nothing."""
    replay = Replay(player.pk)
    if player.is_bot:
        return replay
    rounds: dict[int, list] = {}
    for row in rows["rounds"]:
        rounds.setdefault(row[1], []).append(row[2:])
    teams: dict[int, dict[int, Team]] = {}
    for _, match_id, other, number in rows.get("mates", ()):
        teams.setdefault(match_id, {})[other] = team_of(number)
    events: list[tuple[tuple, fold.Event | None]] = []
    runs: dict[tuple[int, str], list] = {}
    for seat in map(SeatRow._make, rows["seats"]):
        cups, line = seat_effect(seat, tuple(rounds.get(seat.match_id, ())))
        at, number, match_id = seat.finalized_at, seat.season, seat.match_id
        events.append(((number, 1, at, 0, match_id), fold.Finalized(
            match_id, number, seat.mode, line, cups, at, number)))  # fmt: skip
        if seat.status == MatchStatus.VOID:
            assert seat.void_season is not None  # constraint void_iff_voided
            voided = fold.Voided(
                match_id, number, seat.mode, line, cups, seat.voided_at, seat.void_season, True
            )
            events.append(((seat.void_season, 1, seat.voided_at, 1, match_id), voided))
        elif match_id in teams:
            table = MatchTable(
                match_id, seat.completed_at, number, Mode(seat.mode), Team(seat.winner),
                teams[match_id], [player.pk], {} if cups is None else {player.pk: cups},
            )  # fmt: skip
            for pair in pair_rows(table):
                key = (pair["side"], pair["season"], pair["mode"], pair["other_id"])
                held = replay.figures.pairs.setdefault(key, [0, 0, 0])
                held[:] = [n + pair[name] for n, name in zip(held, PAIR_COUNTS, strict=True)]
            for variant in table.variants():
                runs.setdefault(variant, []).append(((seat.completed_at, match_id), table))
    events += [((season + 1, 0), None) for season in history.reset_floors]
    events.sort(key=itemgetter(0))
    resets = {row[3]: row[5] for row in rows["ledger"] if row[1] == CupKind.SEASON_RESET}
    for key, event in events:
        if event is None:
            ended = key[0] - 1
            replay.board_entry(ended)
            at = resets.get(ended + 1, history.finalized_at[ended])
            event = fold.SeasonReset(ended + 1, history.reset_floors[ended], at)
        replay.step(event)
    for variant, matches in runs.items():
        state, done = StreakState(), []
        for key, table in sorted(matches, key=itemgetter(0)):
            state = streaks_after(state, key, table.won(player.pk))
            done += state.ended
        replay.figures.streaks[variant] = replace(state, ended=done)
    return replay


# --- the comparison -------------------------------------------------------------------------


def _ledger_key(row: tuple) -> LedgerKey:
    player_id, kind, match_id, season, *_ = row
    if match_id is None:  # a reset (constraint a_match_unless_a_reset)
        return (CupKind.SEASON_RESET, season, player_id)
    return (kind, match_id, player_id)  # the kind's text equals its CupKind


def _ledger_label(key: LedgerKey) -> str:
    kind, subject, _ = key
    if kind == CupKind.MATCH:
        return f"ledger match {subject}"
    if kind == CupKind.VOID:
        return f"ledger void of match {subject}"
    return f"ledger reset opening season {subject}"


def _variant(season: int, mode: str) -> str:
    return f"{'all time' if season == ALL_SEASONS else f'season {season}'}, {mode}"


class Spec(NamedTuple):
    """How one kind of figure is compared: its ``fields`` one by one (a row on one side only
    shown by ``named_by``), or as one value shown by ``shown`` (``fields`` names it); the
    ``subject`` of a row by the player's label, id and the row's key; the rows' ``order``."""

    fields: tuple[str, ...] | str
    subject: Callable[[str, int, Any], str]
    named_by: tuple[str, ...] = ()
    shown: Callable[[tuple], object] = tuple
    order: Callable[[Any], Any] = tuple


def _own(label: str, pid: int, key: Any) -> str:
    return label


SPECS = {
    "totals": Spec(TOTALS, _own),
    "stats": Spec(STAT_FIELDS, _own),
    "board": Spec(("board_season",), _own),
    "seasons": Spec(
        SEASON_FIELDS, lambda label, pid, key: f"{label}, season {key}",
        ("matches_played", "ranked_played", "cups"), order=int,
    ),
    "ledger": Spec(
        ("delta", "created_at", "cups_after", "season"),
        lambda label, pid, key: f"{_ledger_label(key)}, {label}", ("delta", "created_at"),
        order=lambda key: ({CupKind.MATCH: 0, CupKind.VOID: 1}.get(key[0], 2), key[1]),
    ),
    "pairs": Spec(
        "matches, won, cups",
        lambda label, pid, key: f"player {pid}, {key[0]} {key[3]} ({_variant(*key[1:3])})",
    ),
    "streaks": Spec(
        ", ".join((*STREAK_COUNTS, "last_match")),
        lambda label, pid, key: f"player {pid}, streaks ({_variant(*key)})",
    ),
    "modes": Spec(
        "counts", lambda label, pid, key: f"player {pid}, statistics ({_variant(*key)})",
        shown=lambda values: dict(zip(STAT_FIELDS, values, strict=True)),
    ),
}  # fmt: skip
"""Every kind of figure compared per player, in the order its differences are reported (the
frozen standings come before ``pairs``)."""


def _compared(subject: str, was: tuple | None, now: tuple | None, spec: Spec) -> list[Difference]:
    """The differences of one row (``was`` stored, ``now`` replayed; None: no row)."""
    if isinstance(spec.fields, str):
        shown = (None if values is None else spec.shown(values) for values in (was, now))
        return [Difference(subject, spec.fields, *shown)]
    if was is None or now is None:
        at = spec.fields.index
        return [
            Difference(subject, name, was and was[at(name)], now and now[at(name)])
            for name in spec.named_by
        ]
    return [
        Difference(subject, name, old, new)
        for name, old, new in zip(spec.fields, was, now, strict=True)
        if old != new
    ]


RANK_BITS = 32
RANK_MASK = (1 << RANK_BITS) - 1


def _board_key(player_id: int, entry: BoardEntry, stored_rank: int) -> int:
    """One int that sorts in leaderboard order (``players.models.LEADERBOARD_ORDER``: more
    cups, earlier change, lower id) and carries the stored rank (0: none) in its low bits."""
    at = entry.cups_changed_at
    micros = 0 if at is None else (at - EPOCH) // timedelta(microseconds=1) + (1 << 62)
    key = ((((1 << 31) - entry.cups) << 64) | micros) << RANK_BITS | player_id
    return key << RANK_BITS | stored_rank


class LadderCheck:
    """Compares each replayed player with their stored rows (in id order), then the frozen
    standings' ranks and the current season's board. ``only``: that season's figures alone."""

    def __init__(self, history: History, only: int | None, report: Report) -> None:
        self.history, self.only, self.report = history, only, report
        self.current = history.current
        self.counted: Counter[int] = Counter()
        self.stored_board = stored_board(self.current) if self._in(self.current) else None
        """The board's counts as stored before any chunk is read (``--fix`` moves them)."""
        self.boards: dict[int, list[int]] = {n: [] for n in history.reset_floors if self._in(n)}

    def _in(self, season: int) -> bool:
        return self.only is None or self.only == season

    def player(self, player: Player, rows: dict[str, list], repair: LadderRepair | None) -> None:
        """Report the player's differences; add what to write to ``repair`` (``--fix``)."""
        replay = player_replay(player, rows, self.history)
        state, season = replay.state, replay.seasons.get(self.current)
        on_board = may_be_on_a_board(player) and season is not None
        on_board = on_board and tables.counts_for_the_board(season[RANKED])  # type: ignore[index]
        board_season = self.current if on_board else player.board_season
        board_season = None if not on_board and board_season == self.current else board_season
        figures: dict[str, tuple[dict, dict]] = {}
        if self._in(self.current):
            self.counted.update([state.cups] if on_board else [])
            figures["totals"] = (
                {(): (player.cups, player.best_cups, player.cups_changed_at)},
                {(): (state.cups, state.best_cups, state.changed_at)},
            )
        if self.only is None:
            stats = rows["stats"][0][1:] if rows["stats"] else ZEROS
            figures["stats"] = ({(): stats}, {(): tuple(replay.stats)})
        if self._in(self.current) and may_be_on_a_board(player):
            figures["board"] = ({(): (player.board_season,)}, {(): (board_season,)})
        figures["seasons"] = (
            {row[1]: row[2:] for row in rows["seasons"] if self._in(row[1])},
            {n: tuple(values) for n, values in replay.seasons.items() if self._in(n)},
        )
        figures["ledger"] = (
            {_ledger_key(r): (r[4], r[5], r[6], r[3]) for r in rows["ledger"] if self._in(r[3])},
            {key: values for key, values in replay.ledger.items() if self._in(values[3])},
        )
        if self.only is None and not player.is_bot:
            mine = replay.figures
            streaks = {
                key: (*astuple(state.streaks), state.current.last[1])
                for key, state in mine.streaks.items()
                if state.current is not None
            }
            figures |= {
                "pairs": ({tuple(r[1:5]): r[5:] for r in rows["pairs"] if r[5]}, mine.pairs),
                "streaks": (
                    {tuple(r[1:3]): r[3:] for r in rows["streaks"] if any(r[3:7])},
                    streaks,
                ),
                "modes": (
                    {tuple(r[1:3]): r[3:] for r in rows["modes"] if any(r[3:])},
                    {key: counts for key, counts in mine.modes.items() if any(counts)},
                ),
            }
        label = f"player {player.username} (id {player.pk})"
        differ = set()
        for name, (stored, replayed) in figures.items():
            if name == "pairs":
                self._standings(player, label, rows, replay)
            for key in sorted(stored.keys() | replayed.keys(), key=SPECS[name].order):
                was, now = stored.get(key), replayed.get(key)
                if was is not None and now is not None and tuple(was) == tuple(now):
                    continue
                for difference in _compared(
                    SPECS[name].subject(label, player.pk, key), was, now, SPECS[name]
                ):
                    self.report(difference)
                    differ.add(name)
                if repair is not None and name in differ:
                    _repaired(repair, name, player.pk, key, now, replay)
        if "pairs" not in figures:
            self._standings(player, label, rows, replay)
        if repair is not None and differ & {"totals", "board"}:
            repair.players.append(
                Player(
                    pk=player.pk, cups=state.cups, best_cups=state.best_cups,
                    cups_changed_at=state.changed_at, board_season=board_season,
                    is_bot=player.is_bot, is_banned=player.is_banned,
                )
            )  # fmt: skip

    def _standings(self, player: Player, label: str, rows: dict, replay: Replay) -> None:
        """The player's rows of the finalized seasons' standings, but their ranks (which
        :meth:`finish` checks): the players the standings hold and, besides them, those on
        the board at the end and not banned now (a ban is not part of the history)."""
        stored = {row[1]: row[2:] for row in rows["standings"]}
        spec = Spec(STANDING_FIELDS, _own, ("rank", "cups"))
        for number in sorted(stored.keys() | replay.boards.keys()):
            if number not in self.boards:
                continue
            entry, mine = replay.boards.get(number), stored.get(number)
            if entry is not None and mine is None and player.is_banned:
                entry = None
            if entry is not None:
                self.boards[number].append(_board_key(player.pk, entry, mine[0] if mine else 0))
            now = None if entry is None else (mine[0] if mine else None, *entry[:1], *entry[2:])
            if now is None and mine is None:
                continue
            subject = f"standings of season {number}, {label}"
            named = spec._replace(named_by=("cups",)) if mine is None else spec
            for difference in _compared(subject, mine, now, named):
                if difference.field != "rank" or now is None:
                    self.report(replace(difference, frozen=True))

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
                names = Player.objects.filter(pk__in=[pid for pid, _, _ in batch])
                named = dict(names.values_list("pk", "username"))
                for pid, was, rank in batch:
                    subject = f"standings of season {number}, player {named[pid]} (id {pid})"
                    self.report(Difference(subject, "rank", was, rank, frozen=True))
        if self._in(self.current):
            found = board_differences(self.current, self.counted, self.stored_board)
            for cups, stored, recomputed in found:
                subject = f"board of season {self.current}" + (
                    "" if cups is None else f", {cups} cups"
                )
                field = "total" if cups is None else "players"
                self.report(Difference(subject, field, stored, recomputed))


def _repaired(
    repair: LadderRepair, name: str, pid: int, key: Any, now: Any, replay: Replay
) -> None:
    """Add the replayed row ``now`` (None: remove the stored one) of figure ``name``."""
    if name == "stats":
        repair.stats[pid] = dict(zip(STAT_FIELDS, now, strict=True))
    elif name == "seasons" and now is None:
        repair.stale_seasons.append((pid, key))
    elif name == "seasons":
        repair.seasons[pid, key] = dict(zip(SEASON_FIELDS, now, strict=True))
    elif name == "ledger" and now is None:
        repair.stale_ledger.append(key)
    elif name == "ledger":
        repair.ledger[key] = dict(zip(SPECS["ledger"].fields, now, strict=True))
    elif name in ("pairs", "streaks", "modes"):
        repair.figures[pid] = replay.figures


# --- the run --------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What a run found: how many differences, how many of them in frozen standings."""

    differences: int = 0
    frozen: int = 0


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
    season and the board's counts), as a warning of the read path asks. ``progress(total)``
    may return a function called with the players of each chunk done (a progress bar's
    ``update``).

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
    time, reads = _time_of(connection), _reads(season)
    done = progress(Player.objects.count()) if progress else None
    written, after = False, 0
    while True:
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            if fix:
                _running_end()
            chunked = Player.objects.filter(pk__gt=after).order_by("pk")
            players = list((chunked.select_for_update(no_key=True) if fix else chunked)[:chunk])
            if not players:
                break
            first, last = players[0].pk, players[-1].pk
            if connection.vendor == "postgresql":
                # Read a chunk's rows by their indexes: priced at its default, a random read
                # costs four sequential ones, and whole tables would be read for each chunk.
                cursor.execute("SET LOCAL random_page_cost = 1.1")
                if fix:
                    stats = tables.PlayerStats.objects.filter(player_id__range=(first, last))
                    list(stats.order_by("player_id").select_for_update().values_list("pk"))
            repair = LadderRepair(history.current) if fix else None
            with ExitStack() as opened:
                streams = {}
                for name, sql in reads.items():
                    reader = opened.enter_context(connection.chunked_cursor())
                    streams[name] = _Taken(_rows(reader, sql, [first, last], chunk))
                for player in players:
                    rows = {name: stream.take(player.pk) for name, stream in streams.items()}
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
            total = BoardTotal.objects.select_for_update().filter(season=history.current)
            list(total.values_list("pk"))
            ladder_repair(LadderRepair(history.current, recount=True))
    return outcome


def _running_end() -> None:
    running = Q(status=SeasonStatus.FINALIZING) | Q(reset_floor__isnull=False)
    if Season.objects.filter(running).exists():
        raise Conflict("season", "a season's end is running; rebuild once it is finalized")

"""Writes of the "My games" statistics (KORT_RULES §8): fold a finalized match in, for all time
and for its season (§10), and per mode, or take a voided one back out (§11); the season's
cups; and the figures of §12, partners, opponents and streaks (:class:`MatchTable`).

How the streaks stay right (§12: ordered by completion time, then match id; a void match taken
out as if never played): a player's streaks of a season and mode are stored as runs, the
current one in the streak row (from its first match to the latest match counted) and the runs
before it as ``EndedRun`` rows. A match completed after the latest one, the usual case,
extends the current run or ends it and starts the next, reading nothing more than the streak
row. A void, or a match finalized out of that order (completed before one already counted, as
after a broker outage), changes the runs next to it only: it extends, joins or splits them,
and a split or a void reads the matches of that one run (:func:`runs_near`). Either way the
runs are read first, moved by one pure step (``rules.runs_moved``), then written
(:func:`streaks_moved`). Runs are not additive: taking a match out of the middle can join two
runs or shorten the best one, which no stored sum could tell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from operator import itemgetter
from typing import Any, NamedTuple

from django.db.models import QuerySet

from bulk.updates import Delete, Insert, Statement, Update, Upsert
from matches.kort.rules import (
    Mode,
    RunKey,
    StatsLine,
    StreakRun,
    Streaks,
    Team,
    runs_moved,
    team_of,
)
from matches.models import MatchStatus, Seat
from stats.models import (
    ALL_MODES,
    ALL_SEASONS,
    COUNT_FIELDS,
    OUTCOME_FIELDS,
    EndedRun,
    ModeStats,
    PairFigures,
    PairSide,
    PlayerStats,
    SeasonStats,
    StreakFigures,
)


def stats_values(line: StatsLine) -> dict[str, int]:
    """The model field values of a statistics line."""
    values = {name: getattr(line, name) for name in COUNT_FIELDS}
    for outcome, (team_field, opponents_field) in OUTCOME_FIELDS.items():
        values[team_field], values[opponents_field] = line.outcomes[outcome]
    return values


@dataclass(frozen=True)
class MatchTable:
    """A finalized match as KORT_RULES §12 sees it: who sat in which team (``teams``, every
    seated player by id, bots too), the ``winner``, its ``mode`` and ``season``, when it was
    completed (the streaks' order), the cup change of each human player (``cups``: a ranked
    match's; empty for a room match), and ``humans``, the players whose figures it moves, in
    id order. ``sign`` is 1 to count it, -1 to take it back out (a void, §11): ``-table``."""

    match_id: int
    completed_at: datetime
    season: int
    mode: Mode
    winner: Team
    teams: Mapping[int, Team]
    humans: Sequence[int]
    cups: Mapping[int, int] = field(default_factory=dict)
    sign: int = 1

    def __neg__(self) -> MatchTable:
        return replace(self, sign=-self.sign)

    def won(self, player_id: int) -> bool:
        """Whether ``player_id``'s team won the match."""
        return self.teams[player_id] is self.winner

    def others(self, player_id: int) -> list[tuple[int, str]]:
        """The other players of the match by id, each with their side to ``player_id``:
        partner or opponent (``PairSide``)."""
        team = self.teams[player_id]
        return [
            (other, PairSide.PARTNER.value if mine is team else PairSide.OPPONENT.value)
            for other, mine in sorted(self.teams.items())
            if other != player_id
        ]

    def variants(self) -> list[tuple[int, str]]:
        """The ``(season, mode)`` of the stored rows the match counts in: over all time and
        its season, over both modes and its own."""
        return [(s, m) for s in (ALL_SEASONS, self.season) for m in (ALL_MODES, str(self.mode))]


def stats_add(
    teams: Sequence[tuple[StatsLine, Sequence[int]]], *, season: int, ranked: bool
) -> list[Statement]:
    """The statements that add each team's ``line`` to its players' all-time statistics and to
    those of ``season``: ``teams`` is ``(line, player ids)`` pairs; ``-line`` takes a voided
    match back out (§11). A ranked match's line also counts in the season's ranked matches: the
    first puts the player on that season's leaderboard, and a void of the last takes them off
    (§10).

    Two statements whatever the players (all time, the season), each adding to every column its
    player's amount in the statement (safe under concurrent finalizations, like ``F()``): a
    match's lines are inserted as all-time rows that add to the row they meet, a void's
    (negative) update the rows it meets. The season's rows must be open
    (:func:`season_stats_open`)."""
    player_ids = sorted(pid for _, ids in teams for pid in ids)
    if not player_ids:
        return []
    values = [(stats_values(line), ids) for line, ids in teams]
    all_time: Statement
    if _taken_back(teams):
        all_time = _added(PlayerStats, values)
    else:
        all_time = _lines_inserted(PlayerStats, ("player_id",), values, [{}])
    if ranked:
        values = [
            (counts | {"ranked_played": line.matches_played, "ranked_won": line.matches_won}, ids)
            for (counts, ids), (line, _) in zip(values, teams, strict=True)
        ]
    return [
        all_time,
        _added(SeasonStats, values, {"season": season}),
        *mode_stats_add(teams, season=season, mode=Mode.RANKED if ranked else Mode.ROOM),
    ]


def mode_stats_add(
    teams: Sequence[tuple[StatsLine, Sequence[int]]], *, season: int, mode: Mode
) -> list[Statement]:
    """The statements that add each team's line (as :func:`stats_add`) to its players'
    statistics of ``mode``, over all time and over ``season``: a match's lines in one
    statement (rows made as needed), a void's (negative) in one per row set (the rows are
    there)."""
    values = [(stats_values(line), ids) for line, ids in teams]
    variants = [{"season": variant, "mode": str(mode)} for variant in (ALL_SEASONS, season)]
    if _taken_back(teams):
        return [_added(ModeStats, values, variant) for variant in variants]
    return [_lines_inserted(ModeStats, ("player_id", "season", "mode"), values, variants)]


def _taken_back(teams: Sequence[tuple[StatsLine, Sequence[int]]]) -> bool:
    """Whether the lines are a void's, negative (§11): its players' rows are all there."""
    return any(line.matches_played < 0 for line, _ in teams)


def _lines_inserted(
    model: type[PlayerStats | ModeStats],
    key: Sequence[str],
    values: Sequence[tuple[dict[str, int], Sequence[int]]],
    variants: Sequence[Mapping[str, object]],
) -> Insert:
    """One row of ``model`` per player of ``values`` (``(counts, player ids)`` pairs) and
    per ``variants`` (the other columns of the row's unique ``key``, which starts with the
    player), inserted in the key's order, each adding its counts to the row it meets: one
    statement."""
    rows = [
        {"player_id": pid, **variant, **counts}
        for counts, ids in values
        for pid in ids
        for variant in variants
    ]
    rows.sort(key=lambda row: tuple(row[name] for name in key))
    return Insert(model, rows, Upsert(key, tuple(values[0][0]), adding=True))


def _added(
    model: type[PlayerStats | SeasonStats | ModeStats],
    values: Sequence[tuple[dict[str, int], Sequence[int]]],
    where: Mapping[str, Any] | None = None,
) -> Update:
    """The rows of ``model`` of the players of ``values`` (``(counts, player ids)`` pairs, and
    each column of ``where`` its value), each column that some team moves raised by the amount
    of the row's team: one statement, rows in player id order."""
    where = where or {}
    columns = sorted({name for counts, _ in values for name, n in counts.items() if n})
    rows = sorted(
        [pid, *where.values(), *(counts[name] for name in columns)]
        for counts, ids in values
        for pid in ids
    )
    return Update(model, ("player_id", *where), dict.fromkeys(columns, "+"), rows)


def season_stats_open(season: int, totals: Mapping[int, int]) -> list[Statement]:
    """The statement that opens each player's statistics row of ``season`` if it has none,
    starting from the cup total ``totals[player id]`` they have at that moment: the total the
    season opened with, since every cup change of a season opens the row first (§10)."""
    rows = [
        {"player_id": pid, "season": season, "cups": total, "best_cups": total}
        for pid, total in sorted(totals.items())
    ]
    return [Insert(SeasonStats, rows, Upsert(("player_id", "season")))]


def season_cups_record(season: int, totals: Mapping[int, int]) -> list[Statement]:
    """After a cup change in ``season`` (a match or a void; rows open): the statement that
    sets each player's season ``cups`` to their new total ``totals[player id]`` and
    ``best_cups`` to the higher of the two (§10). One statement whatever the players."""
    rows = [(pid, season, total, total) for pid, total in sorted(totals.items())]
    modes = {"cups": "=", "best_cups": "max"}
    return [Update(SeasonStats, ("player_id", "season"), modes, rows)]


def stats_replace(
    totals: Mapping[int, Mapping[str, int]],
    seasons: Mapping[tuple[int, int], Mapping[str, int]],
    stale: Iterable[tuple[int, int]],
) -> None:
    """Write recomputed statistics over the stored ones (``manage.py rebuild_ladder --fix``):
    each player's all-time row from ``totals`` (by player id), each season row from
    ``seasons`` (by ``(player id, season)``), and remove the season rows ``stale``. A few
    statements whatever the rows (inserts that replace the row they meet, one delete per
    season); a row written keeps its key."""
    if totals:
        columns = sorted({name for values in totals.values() for name in values})
        rows = [PlayerStats(player_id=pid, **totals[pid]) for pid in sorted(totals)]
        PlayerStats.objects.bulk_create(
            rows, update_conflicts=True, unique_fields=["player"], update_fields=columns
        )
    by_season: dict[int, list[int]] = {}
    for player_id, season in stale:
        by_season.setdefault(season, []).append(player_id)
    for season, player_ids in sorted(by_season.items()):
        SeasonStats.objects.filter(season=season, player_id__in=sorted(player_ids)).delete()
    if seasons:
        columns = sorted({name for values in seasons.values() for name in values})
        stats = [
            SeasonStats(player_id=pid, season=number, **seasons[pid, number])
            for pid, number in sorted(seasons)
        ]
        SeasonStats.objects.bulk_create(
            stats, update_conflicts=True, unique_fields=["player", "season"], update_fields=columns
        )


# --- Partners, opponents and streaks (KORT_RULES §12) ------------------------------------------

PAIR_UNIQUE = ("player_id", "side", "season", "mode", "other_id")
"""The columns of the unique constraint ``one_pair_row``."""
PAIR_COUNTS = ("matches", "won", "cups")
"""The columns of a pair row that a match adds to."""


def pairs_follow(table: MatchTable) -> list[Statement]:
    """The statement that counts the match (``table.sign`` 1) in, or takes it back out of (-1),
    the partners and opponents figures of each of its human players, for every stored season and
    mode it counts in (:meth:`MatchTable.variants`): one statement for the match's rows (rows in
    the order of the unique key, which every writer follows). The rows are those of the match's
    human players only, whose player rows the ladder holds locked (``ranking.ladder``); a match
    of bots alone has none."""
    if not table.humans:
        return []
    rows = pair_rows(table)
    if table.sign > 0:
        adding = Upsert(PAIR_UNIQUE, PAIR_COUNTS, adding=True)
        return [Insert(PairFigures, rows, adding)]
    return [_pairs_taken_back(rows)]


def pair_rows(table: MatchTable) -> list[dict[str, Any]]:
    """The amounts the match (``table.sign`` 1) adds to, or takes out of (-1), the pair rows
    of each of its human players, by the columns of the pair rows' unique key, in its order
    (KORT_RULES §12): one row per other player of the match and variant it counts in."""
    rows = []
    for player_id in table.humans:
        won = int(table.won(player_id))
        cups = table.cups.get(player_id, 0)
        for other, side in table.others(player_id):
            for season, mode in table.variants():
                rows.append(
                    {
                        "player_id": player_id,
                        "other_id": other,
                        "side": side,
                        "season": season,
                        "mode": mode,
                        "matches": table.sign,
                        "won": table.sign * won,
                        "cups": table.sign * cups,
                    }
                )
    rows.sort(key=itemgetter(*PAIR_UNIQUE))
    return rows


def _pairs_taken_back(rows: Sequence[Mapping]) -> Update:
    """The (negative) amounts of ``rows`` added to the stored pair rows, which a finalization
    made: one ``UPDATE`` whatever the rows."""
    values = [[row[name] for name in (*PAIR_UNIQUE, *PAIR_COUNTS)] for row in rows]
    return Update(PairFigures, PAIR_UNIQUE, dict.fromkeys(PAIR_COUNTS, "+"), values)


STREAK_COUNTS = ("win_current", "win_best", "loss_current", "loss_best")
"""The columns of a streak row that hold :class:`matches.kort.rules.Streaks`, in its order."""
STREAK_WRITE = Upsert(
    ("player_id", "season", "mode"),
    (
        *STREAK_COUNTS,
        "last_completed_at",
        "last_match",
        "current_first_completed_at",
        "current_first_match",
    ),
)
"""A streak row written over the stored one (the unique constraint ``one_streak_row``)."""


@dataclass(frozen=True)
class StreakState:
    """A player's streaks of one season and mode (KORT_RULES §12) as the ladder keeps them:
    the figures (``streaks``), the ``current`` run (None: no match counts) and, written with
    them, the ended runs ``ended`` (new) and ``gone`` (the ids of stored ones removed)."""

    streaks: Streaks = field(default_factory=Streaks)
    current: StreakRun | None = None
    ended: Sequence[StreakRun] = ()
    gone: Sequence[int] = ()


def streaks_follow(table: MatchTable) -> list[Statement]:
    """The statements that move the streaks of the match's human players, for every season and
    mode it counts in (module docstring): one read of their streak rows now, each variant's
    runs moved (:func:`streaks_moved`), then the ended runs removed and added, and the streak
    rows written as plain values (players in id order, then :meth:`MatchTable.variants`, in
    the order of the unique key)."""
    if not table.humans:
        return []
    stored = {(row.player_id, row.season, row.mode): _state_of(row) for row in _streak_rows(table)}
    key = (table.completed_at, table.match_id)
    ended: list[dict[str, Any]] = []
    gone: list[int] = []
    rows = []
    for player_id in table.humans:
        won = table.won(player_id)
        for season, mode in table.variants():
            state = stored.get((player_id, season, mode), StreakState())
            variant = StreakVariant(player_id, season, mode)
            state = streaks_moved(variant, state, key, won, counted=table.sign > 0)
            ended += [_ended_row(player_id, season, mode, run) for run in state.ended]
            gone += state.gone
            rows.append(_streak_row(player_id, season, mode, state))
    ended.sort(key=lambda row: tuple(row[name] for name in ENDED_ORDER))
    return [
        Delete(EndedRun, "id", gone),
        Insert(EndedRun, ended),
        Insert(StreakFigures, rows, STREAK_WRITE),
    ]


def _streak_rows(table: MatchTable) -> QuerySet[StreakFigures]:
    """The streak rows of the match's human players over all time and its season, both modes
    and its own."""
    return StreakFigures.objects.filter(
        player_id__in=table.humans,
        season__in=[ALL_SEASONS, table.season],
        mode__in=[ALL_MODES, str(table.mode)],
    )


ENDED_ORDER = ("player_id", "season", "mode", "first_completed_at", "first_match")
"""The columns of the unique constraint ``ended_run_order``."""


def _state_of(row: StreakFigures) -> StreakState:
    """The streaks and the current run that a streak row holds."""
    streaks = Streaks(*(getattr(row, name) for name in STREAK_COUNTS))
    if row.last_match is None:
        return StreakState(streaks)
    # The four are written together, and a row with a match counted has a current run.
    assert row.last_completed_at is not None and row.current_first_completed_at is not None
    assert row.current_first_match is not None
    current = StreakRun(
        streaks.win_current > 0,
        (row.current_first_completed_at, row.current_first_match),
        (row.last_completed_at, row.last_match),
        streaks.win_current or streaks.loss_current,
    )
    return StreakState(streaks, current)


def _streak_row(player_id: int, season: int, mode: str, state: StreakState) -> dict[str, Any]:
    current = state.current
    return {
        "player_id": player_id,
        "season": season,
        "mode": mode,
        **{name: getattr(state.streaks, name) for name in STREAK_COUNTS},
        "last_completed_at": None if current is None else current.last[0],
        "last_match": None if current is None else current.last[1],
        "current_first_completed_at": None if current is None else current.first[0],
        "current_first_match": None if current is None else current.first[1],
    }


def _ended_row(player_id: int, season: int, mode: str, run: StreakRun) -> dict[str, Any]:
    return {
        "player_id": player_id,
        "season": season,
        "mode": mode,
        "won": run.won,
        "first_completed_at": run.first[0],
        "first_match": run.first[1],
        "last_completed_at": run.last[0],
        "last_match": run.last[1],
        "length": run.length,
    }


class StreakVariant(NamedTuple):
    """The streaks of one player over one season (0: all time) and mode (``all``: both)."""

    player_id: int
    season: int
    mode: str

    def ended_runs(self) -> QuerySet[EndedRun]:
        return EndedRun.objects.filter(player_id=self.player_id, season=self.season, mode=self.mode)


def streaks_moved(
    variant: StreakVariant, state: StreakState, key: RunKey, won: bool, *, counted: bool
) -> StreakState:
    """The streaks once the match ``key``, ``won`` or lost, is counted in (``counted``) or
    taken out (a void) anywhere in completion order (KORT_RULES §12): what the runs next to
    the key need is read first (:func:`runs_near`), the runs are moved
    (``rules.runs_moved``), and, when a run that was the longest of its kind got shorter, the
    longest other ended run of that kind is read: never more than the runs it touches,
    whatever the player's history."""
    stored, members = runs_near(variant, state.current, key, won, counted)
    moved = runs_moved([*stored], state.current, state.streaks, key, won, counted, members)
    gone = [pk for run, pk in stored.items() if run in moved.replaced]
    streaks = moved.streaks
    if moved.shortened:
        longest = {kind: _longest_ended(variant, kind, gone) for kind in moved.shortened}
        streaks = replace(
            streaks,
            win_best=max(streaks.win_best, longest.get(True, 0)),
            loss_best=max(streaks.loss_best, longest.get(False, 0)),
        )
    return StreakState(streaks, moved.current, moved.ended, gone)


def runs_near(
    variant: StreakVariant, current: StreakRun | None, key: RunKey, won: bool, counted: bool
) -> tuple[dict[StreakRun, int], list[tuple[RunKey, bool]]]:
    """What moving the runs for the match ``key``, ``won`` or lost, counted in (``counted``)
    or taken out, reads besides the ``current`` run: the ended runs next to the key, with
    their ids (the two latest starting at or before it and the first starting after it: two
    index reads), and the other matches of the run that holds the key when the match splits
    or shortens it (a void, or a match of the other kind; one of its own kind only lengthens
    it), as ``(key, won)`` pairs (:func:`run_members`). A match counted after every one
    counted reads nothing."""
    if counted and (current is None or current.last < key):
        return {}, []
    ended = variant.ended_runs()
    at, match_id = key
    # A range of the index ``ended_run_order`` each, the ties at ``at`` sorted out after.
    up_to_key = ended.filter(first_completed_at__lte=at).exclude(
        first_completed_at=at, first_match__gt=match_id
    )
    after_key = ended.filter(first_completed_at__gte=at).exclude(
        first_completed_at=at, first_match__lte=match_id
    )
    first_order = ("first_completed_at", "first_match")
    earlier = list(up_to_key.order_by(*(f"-{name}" for name in first_order))[:2])
    later = list(after_key.order_by(*first_order)[:1])
    stored = {_run_of(row): row.pk for row in [*earlier[::-1], *later]}
    runs = [*stored, *([] if current is None else [current])]
    holding = next((run for run in runs if run.first <= key <= run.last), None)
    if holding is None or (counted and holding.won == won):
        return stored, []
    return stored, run_members(variant, holding, holding.length - (0 if counted else 1), match_id)


def _run_of(row: EndedRun) -> StreakRun:
    return StreakRun(
        row.won,
        (row.first_completed_at, row.first_match),
        (row.last_completed_at, row.last_match),
        row.length,
    )


def _longest_ended(variant: StreakVariant, won: bool, gone: Sequence[int]) -> int:
    """The length of the longest ended run of the kind ``won`` but the runs ``gone`` (one read
    by ``ended_run_length``; 0: none)."""
    longest = (
        variant.ended_runs()
        .filter(won__in=[won])  # an equality the index can take (SQLite reads "NOT won" row by row)
        .exclude(pk__in=gone)
        .order_by("-length")
        .values_list("length", flat=True)
        .first()
    )
    return longest or 0


def run_members(
    variant: StreakVariant, run: StreakRun, count: int, leave_out: int
) -> list[tuple[RunKey, bool]]:
    """The ``count`` matches of ``run`` other than ``leave_out`` (the match being counted in
    or voided), as ``(key, won)`` pairs: the player's finalized matches of the variant
    completed from the run's first match to its last. Read through the player's seats newest
    created first (``seat_history_order``) from the run's last completion time, each with its
    match by primary key, in slices of ``count + 1`` and more until the ``count``-th is found:
    a match is created before it is completed, so the read covers the run's time span, not the
    player's history. The match's columns are checked here, not in the query, so that no plan
    can start from the matches and read all those of the time span."""
    if count <= 0:
        return []
    first, last = run.first, run.last
    seats = Seat.objects.filter(player_id=variant.player_id).order_by(
        "-match_created_at", "-match_id"
    )
    columns = ["match_created_at", "match_id", "seat", "match__status", "match__season"]
    columns += ["match__mode", "match__winner", "match__completed_at"]
    members: list[tuple[RunKey, bool]] = []
    older = seats.filter(match_created_at__lte=last[0])
    size = count + 1
    while True:
        rows = list(older.values_list(*columns)[:size])
        for _created, match_id, seat, status, season, mode, winner, completed_at in rows:
            if (
                match_id == leave_out
                or status != MatchStatus.FINALIZED
                or variant.season not in (ALL_SEASONS, season)
                or variant.mode not in (ALL_MODES, mode)
            ):
                continue
            assert completed_at is not None  # a finalized match was completed
            key = (completed_at, match_id)
            if first <= key <= last:
                members.append((key, team_of(seat) == winner))
                if len(members) == count:
                    return sorted(members)
        if len(rows) < size:
            return sorted(members)
        # On from the last seat read: created earlier, or at the same time with a lower id.
        created_at, match_id = rows[-1][:2]
        older = seats.filter(match_created_at__lte=created_at).exclude(
            match_created_at=created_at, match_id__gte=match_id
        )
        size *= 2


@dataclass
class PlayerFigures:
    """One player's statistics per mode and figures of KORT_RULES §12 as their history gives
    them (``manage.py rebuild_ladder``): ``modes``, the §8 counts (in :func:`stats_values`
    order) by ``(season, mode)``; ``pairs``, ``[matches, won, cups]`` by ``(side, season,
    mode, other id)``; ``streaks`` by ``(season, mode)``, each with every ended run."""

    modes: dict[tuple[int, str], tuple[int, ...]] = field(default_factory=dict)
    pairs: dict[tuple[str, int, str, int], tuple[int, ...]] = field(default_factory=dict)
    streaks: dict[tuple[int, str], StreakState] = field(default_factory=dict)


def figures_replace(figures: Mapping[int, PlayerFigures]) -> list[Statement]:
    """The statements that write ``figures`` (by player id) over every stored row of those
    players' statistics per mode, pairs, streaks and ended runs: deleted, then inserted
    (counts of a mode or a pair that hold no match are left out, as a void may leave them)."""
    ids = sorted(figures)
    names = list(stats_values(StatsLine()))
    modes, pairs, streaks, ended = [], [], [], []
    for pid in ids:
        mine = figures[pid]
        for (season, mode), counts in sorted(mine.modes.items()):
            if any(counts):
                modes.append({"player_id": pid, "season": season, "mode": mode})
                modes[-1].update(zip(names, counts, strict=True))
        for (side, season, mode, other), amounts in sorted(mine.pairs.items()):
            if amounts[0]:
                pairs.append(dict(zip(PAIR_UNIQUE, (pid, side, season, mode, other), strict=True)))
                pairs[-1].update(zip(PAIR_COUNTS, amounts, strict=True))
        for (season, mode), state in sorted(mine.streaks.items()):
            streaks.append(_streak_row(pid, season, mode, state))
            ended += [_ended_row(pid, season, mode, run) for run in state.ended]
    ended.sort(key=lambda row: tuple(row[name] for name in ENDED_ORDER))
    models = (ModeStats, PairFigures, StreakFigures, EndedRun)
    return [
        *(Delete(model, "player_id", ids) for model in models),
        *(
            Insert(model, rows)
            for model, rows in zip(models, (modes, pairs, streaks, ended), strict=True)
        ),
    ]

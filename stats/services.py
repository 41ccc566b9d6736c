"""Writes of the "My games" statistics (KORT_RULES §8): fold a finalized match in, for all time
and for its season (§10), and per mode, or take a voided one back out (§11); the season's
cups; and the figures of §12, partners, opponents and streaks (:class:`MatchTable`).

How the streaks stay right (§12: ordered by completion time, then match id; a void match taken
out as if never played): each streak row remembers the latest match it counted. A match
finalized after that one, the usual case, moves the row by one step (``Streaks.after``). A
void, or a match finalized out of that order (completed before one already counted), has the
row counted again from the player's history in that season and mode (:func:`streaks_counted`,
one ordered read of the player's finalized matches of that season and mode). Runs are not
additive: taking a match out of the middle can join two runs or shorten the best one, which
no stored sum could tell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.db.models import QuerySet

from bulk.updates import AddedByKey, AtLeast, ByKey, Insert, Statement, Update, Upsert, run
from matches.kort.rules import Mode, StatsLine, Streaks, Team, team_of
from matches.models import MatchStatus, Seat
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
    StreakFigures,
)


def stats_values(line: StatsLine) -> dict[str, int]:
    """The model field values of a statistics line."""
    values = {name: getattr(line, name) for name in COUNT_FIELDS}
    for outcome, (team_field, opponents_field) in OUTCOME_FIELDS.items():
        values[team_field], values[opponents_field] = line.outcomes[outcome]
    return values


@dataclass(frozen=True)
class SeasonCups:
    """A change of the players' cup totals as the season statistics see it: the totals
    ``before`` (every player of the change, by id) and ``after`` (those whose total moved), in
    ``season`` (None: a season's reset, which the season rows do not follow, §10)."""

    season: int | None
    before: Mapping[int, int]
    after: Mapping[int, int]


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

    def variants(self) -> list[tuple[int, str]]:
        """The ``(season, mode)`` of the stored rows the match counts in: over all time and
        its season, over both modes and its own."""
        return [(s, m) for s in (ALL_SEASONS, self.season) for m in (ALL_MODES, str(self.mode))]


def stats_follow(
    cups: SeasonCups,
    lines: Sequence[tuple[StatsLine, Sequence[int]]],
    *,
    season: int | None,
    ranked: bool,
    table: MatchTable | None = None,
) -> list[Statement]:
    """The statements of the statistics of one change of the ladder, which
    ``ranking.ladder.ladder_apply`` runs with its own (``bulk.updates.run``), in this order:
    the season rows of ``cups.season`` follow the moved totals (opened with the totals
    before, then their ``cups`` and ``best_cups`` recorded, §10), ``lines`` are added to
    all-time, to ``season``'s and to the mode's statistics (:func:`stats_add`; rows of
    ``season`` opened with the totals before when no total moved), and the match's ``table``
    moves the §12 figures of its human players (:func:`pairs_follow`, then
    :func:`streaks_follow`, which reads the streak rows now: call it holding the players'
    rows)."""
    statements = []
    if cups.season is not None and cups.after:
        statements += season_stats_open(cups.season, {pid: cups.before[pid] for pid in cups.after})
        statements += season_cups_record(cups.season, cups.after)
    if lines:
        assert season is not None
        if not cups.after:
            statements += season_stats_open(season, cups.before)
        statements += stats_add(lines, season=season, ranked=ranked)
    if table is not None:
        statements += pairs_follow(table)
        statements += streaks_follow(table)
    return statements


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
        all_time = Update(PlayerStats, "player_id", player_ids, _added(values))
    else:
        all_time = _lines_inserted(PlayerStats, ("player_id",), values, [{}])
    if ranked:
        values = [
            (counts | {"ranked_played": line.matches_played, "ranked_won": line.matches_won}, ids)
            for (counts, ids), (line, _) in zip(values, teams, strict=True)
        ]
    return [
        all_time,
        Update(SeasonStats, "player_id", player_ids, _added(values), {"season": season}),
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
        player_ids = sorted(pid for _, ids in teams for pid in ids)
        return [
            Update(ModeStats, "player_id", player_ids, _added(values), variant)
            for variant in variants
        ]
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
    return Insert(model, rows, replacing=Upsert(key, tuple(values[0][0]), adding=True))


def _added(values: Sequence[tuple[dict[str, int], Sequence[int]]]) -> dict[str, AddedByKey]:
    """Each column that some team's ``values`` move, raised by the amount of the row's team."""
    columns = sorted({name for counts, _ in values for name, n in counts.items() if n})
    return {
        name: AddedByKey("player_id", [(counts[name], ids) for counts, ids in values])
        for name in columns
    }


def season_stats_open(season: int, totals: Mapping[int, int]) -> list[Statement]:
    """The statement that opens each player's statistics row of ``season`` if it has none,
    starting from the cup total ``totals[player id]`` they have at that moment: the total the
    season opened with, since every cup change of a season opens the row first (§10)."""
    rows = [
        {"player_id": pid, "season": season, "cups": total, "best_cups": total}
        for pid, total in sorted(totals.items())
    ]
    return [Insert(SeasonStats, rows, skip_existing=True)]


def season_cups_record(season: int, totals: Mapping[int, int]) -> list[Statement]:
    """After a cup change in ``season`` (a match or a void; rows open): the statement that
    sets each player's season ``cups`` to their new total ``totals[player id]`` and
    ``best_cups`` to the higher of the two (§10). One statement whatever the players."""
    total = ByKey("player_id", totals)
    return [
        Update(
            SeasonStats,
            "player_id",
            totals.keys(),
            {"cups": total, "best_cups": AtLeast(total)},
            {"season": season},
        )
    ]


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
        rows = [{"player_id": pid, **totals[pid]} for pid in sorted(totals)]
        run([Insert(PlayerStats, rows, replacing=Upsert(("player_id",), columns))])
    by_season: dict[int, list[int]] = {}
    for player_id, season in stale:
        by_season.setdefault(season, []).append(player_id)
    for season, player_ids in sorted(by_season.items()):
        SeasonStats.objects.filter(season=season, player_id__in=sorted(player_ids)).delete()
    if seasons:
        columns = sorted({name for values in seasons.values() for name in values})
        rows = [
            {"player_id": pid, "season": number, **seasons[pid, number]}
            for pid, number in sorted(seasons)
        ]
        run([Insert(SeasonStats, rows, replacing=Upsert(("player_id", "season"), columns))])


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
    rows = []
    for player_id in table.humans:
        won = int(table.won(player_id))
        cups = table.cups.get(player_id, 0)
        for other, team in sorted(table.teams.items()):
            if other == player_id:
                continue
            side = PairSide.PARTNER if team is table.teams[player_id] else PairSide.OPPONENT
            for season, mode in table.variants():
                rows.append(
                    {
                        "player_id": player_id,
                        "other_id": other,
                        "side": str(side),
                        "season": season,
                        "mode": mode,
                        "matches": table.sign,
                        "won": table.sign * won,
                        "cups": table.sign * cups,
                    }
                )
    rows.sort(key=lambda row: tuple(row[name] for name in PAIR_UNIQUE))
    if table.sign > 0:
        adding = Upsert(PAIR_UNIQUE, PAIR_COUNTS, adding=True)
        return [Insert(PairFigures, rows, replacing=adding)]
    return [_pairs_taken_back(rows)]


def _pairs_taken_back(rows: Sequence[Mapping]) -> Update:
    """The (negative) amounts of ``rows`` added to the stored pair rows, which a finalization
    made: one ``UPDATE`` whatever the rows (rows of one player share their amounts)."""
    amounts = {row["player_id"]: {name: row[name] for name in PAIR_COUNTS} for row in rows}
    keys = [tuple(row[name] for name in PAIR_UNIQUE) for row in rows]
    return Update(
        PairFigures,
        PAIR_UNIQUE,
        keys,
        _added([(counts, [pid]) for pid, counts in sorted(amounts.items())]),
    )


STREAK_COUNTS = ("win_current", "win_best", "loss_current", "loss_best")
"""The columns of a streak row that hold :class:`matches.kort.rules.Streaks`, in its order."""
STREAK_WRITE = Upsert(
    ("player_id", "season", "mode"), (*STREAK_COUNTS, "last_completed_at", "last_match")
)
"""A streak row written over the stored one (the unique constraint ``one_streak_row``)."""


def streaks_follow(table: MatchTable) -> list[Statement]:
    """The statement that moves the streaks of the match's human players, for every season and
    mode it counts in (module docstring): one read of their rows now, then one write of them
    all as plain values (in the order of the unique key: players in id order, then
    :meth:`MatchTable.variants`). A match finalized after the latest one a row counted extends
    its runs by one step; a void, or a match that comes before that one in completion order,
    has the row counted again from the player's history (:func:`streaks_counted`)."""
    if not table.humans:
        return []
    variants = table.variants()
    stored: dict[tuple[int, int, str], tuple[Streaks, tuple[datetime, int] | None]] = {}
    for row in _streak_rows(table):
        last = None
        if row.last_match is not None:
            assert row.last_completed_at is not None  # the two are written together
            last = row.last_completed_at, row.last_match
        streaks = Streaks(*(getattr(row, name) for name in STREAK_COUNTS))
        stored[row.player_id, row.season, row.mode] = streaks, last
    latest = (table.completed_at, table.match_id)
    rows = []
    for player_id in table.humans:
        for season, mode in variants:
            streaks, last = stored.get((player_id, season, mode), (Streaks(), None))
            if table.sign > 0 and (last is None or last < latest):
                streaks, last = streaks.after(table.won(player_id)), latest
            else:
                leave_out = table.match_id if table.sign < 0 else None
                streaks, last = streaks_counted(player_id, season, mode, leave_out=leave_out)
            rows.append(
                {
                    "player_id": player_id,
                    "season": season,
                    "mode": mode,
                    **{name: getattr(streaks, name) for name in STREAK_COUNTS},
                    "last_completed_at": None if last is None else last[0],
                    "last_match": None if last is None else last[1],
                }
            )
    return [Insert(StreakFigures, rows, replacing=STREAK_WRITE)]


def _streak_rows(table: MatchTable) -> QuerySet[StreakFigures]:
    """The streak rows of the match's human players over all time and its season, both modes
    and its own."""
    return StreakFigures.objects.filter(
        player_id__in=table.humans,
        season__in=[ALL_SEASONS, table.season],
        mode__in=[ALL_MODES, str(table.mode)],
    )


def player_results(
    player_id: int, season: int, mode: str, *, leave_out: int | None = None
) -> Iterable[tuple[bool, datetime, int]]:
    """The player's finalized matches of ``season`` (0: all) and ``mode`` (``all``: both), in
    completion order, then by id, as ``(won, completed_at, match id)``; ``leave_out`` a match
    being voided. Read in chunks through the player's seats."""
    seats = Seat.objects.filter(player_id=player_id, match__status=MatchStatus.FINALIZED)
    if season != ALL_SEASONS:
        seats = seats.filter(match__season=season)
    if mode != ALL_MODES:
        seats = seats.filter(match__mode=mode)
    if leave_out is not None:
        seats = seats.exclude(match_id=leave_out)
    ordered = seats.order_by("match__completed_at", "match_id").values_list(
        "seat", "match__winner", "match__completed_at", "match_id"
    )
    for seat, winner, completed_at, match_id in ordered.iterator(chunk_size=5000):
        assert completed_at is not None  # a finalized match was completed
        yield team_of(seat) == winner, completed_at, match_id


def streaks_counted(
    player_id: int, season: int, mode: str, *, leave_out: int | None = None
) -> tuple[Streaks, tuple[datetime, int] | None]:
    """The player's streaks of ``season`` and ``mode`` counted from their history
    (:func:`player_results`), and the latest match counted (None: none)."""
    streaks, last = Streaks(), None
    for won, completed_at, match_id in player_results(player_id, season, mode, leave_out=leave_out):
        streaks, last = streaks.after(won), (completed_at, match_id)
    return streaks, last

"""The figures of KORT_RULES §12 (partners, opponents, streaks) and the statistics per mode
counted again from the history, compared with the stored ones and, on request, written over them
(``manage.py rebuild_ladder``).

The database counts and compares, in the same SQL on PostgreSQL and SQLite
(:func:`expected_sql`): the human players are taken in id order, a chunk at a time; for each
chunk, their finalized, not void, matches (their seats, each with its match, the player's cups
from the ledger, read as the ledger's app says, and the finished rounds) are grouped into the
rows the history gives, for the four variants of each match (over all time and its season, over
both modes and its own), and a ``FULL OUTER JOIN`` with the chunk's stored rows keeps the rows
that differ, which alone reach Python. Streaks are runs of wins and of losses in completion
order, then match id (window functions); the §8 counts of each match are the rules' own lines
(``rules.match_stats``: the match's line plus a line per finished round, :func:`_lines_sql`).
Time grows with the seats, memory with one chunk's differences.

With ``fix``, the chunk's players are locked first (in id order, as the ladder's writers do),
and a player whose rows differ has them deleted and written again from the same SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product

from django.db import connections, router, transaction
from django.db.models import Model

from bulk.sql import id_in
from matches.kort.rules import (
    SEATS,
    Mode,
    Outcome,
    RoundResult,
    StatsLine,
    Team,
    round_stats,
    team_of,
)
from matches.kort.rules import match_stats as match_line
from matches.models import Match, MatchStatus, Round, RoundStatus, Seat
from players.models import Player
from stats.models import (
    ALL_MODES,
    ALL_SEASONS,
    EndedRun,
    ModeStats,
    PairFigures,
    PairSide,
    StreakFigures,
)
from stats.services import stats_values

MODE_FIELDS = tuple(stats_values(StatsLine()))
"""The fields of a ``ModeStats`` row that the checker compares: the §8 counts."""

CHUNK = 2000
"""Players counted and compared together: one read of each kind of figure."""


@dataclass(frozen=True)
class FigureDifference:
    """A stored §12 value the history does not give: ``subject`` names the player and the
    row, ``stored`` / ``recomputed`` the values (None: no such row)."""

    subject: str
    field: str
    stored: object
    recomputed: object

    def __str__(self) -> str:
        return f"{self.subject}: {self.field} stored {self.stored}, recomputed {self.recomputed}"


# --- the rows the history gives, counted in SQL ----------------------------------------------


def _table(model: type[Model]) -> str:
    return f'"{model._meta.db_table}"'


def _team_sql(seat: str) -> str:
    """The team (``Team`` value) of the seat number in ``seat`` (SQL), as ``team_of`` says."""
    return f"CASE {seat} " + " ".join(f"WHEN {s} THEN '{team_of(s)}'" for s in SEATS) + " END"


def _values_sql(rows: Sequence[Sequence[object]]) -> str:
    return ", ".join(
        "(" + ", ".join(f"'{v}'" if isinstance(v, str) else str(v) for v in row) + ")"
        for row in rows
    )


def _lines_sql() -> str:
    """Two constant tables of the rules' §8 lines: ``match_lines`` (a match's own line, by
    winner and the player's team) and ``round_lines`` (a finished round's, by its outcome,
    winner and 7:0 team, '' for none, and the player's team), so that a match's counts for a
    player are its line plus its rounds' (``rules.match_stats``). A round's counts read its
    outcome, winner and 7:0 team only, not its trump nor its wins
    (``tests/stats/test_rebuild_pairs.py`` pins it)."""
    names = ", ".join(f'"{name}"' for name in MODE_FIELDS)
    matches = [
        (str(winner), str(team), *stats_values(match_line([], winner, team)).values())
        for winner, team in product(Team, Team)
    ]
    rounds = [
        (
            str(outcome),
            str(winner),
            "" if shutout is None else str(shutout),
            str(team),
            *stats_values(
                round_stats(RoundResult(outcome, winner, 0, Team.A, shutout), team)
            ).values(),
        )
        for outcome, winner, shutout, team in product(Outcome, Team, (None, *Team), Team)
    ]
    return (
        f"match_lines (winner, team, {names}) AS (VALUES {_values_sql(matches)}), "
        f"round_lines (outcome, winner, shutout_team, team, {names}) AS "
        f"(VALUES {_values_sql(rounds)})"
    )


def _variant_sql(row: str) -> str:
    """The season and mode of the stored rows a ``variants`` row ``v`` counts ``row``'s
    match in (``rules.MatchTable.variants``)."""
    return (
        f"CASE WHEN v.every_season = 1 THEN {ALL_SEASONS} ELSE {row}.match_season END AS season, "
        f"CASE WHEN v.every_mode = 1 THEN '{ALL_MODES}' ELSE {row}.match_mode END AS mode"
    )


def expected_sql(players: str, cups: str) -> str:
    """``WITH`` the rows the history gives the human players whose seats ``players`` (a
    condition on ``s."player_id"``, naming no bot) names, their cups read by ``cups`` (see
    :func:`pairs_rebuild`): ``pairs``, ``streaks`` and
    ``modes``, each with the columns of :data:`FIGURES`' table (KORT_RULES §8, §12). Pairs and
    statistics are summed by the match's season and mode first, then into the variants (a sum
    of sums is cast back to an integer: PostgreSQL makes it a decimal)."""
    seat, match = _table(Seat), _table(Match)
    fields = [f'"{name}"' for name in MODE_FIELDS]
    lines = ", ".join(f"l.{name}" for name in fields)
    within = "PARTITION BY player_id, season, mode"
    after = "ORDER BY completed_at, match_id"
    return f"""WITH {_lines_sql()},
variants (every_season, every_mode) AS (VALUES (1, 1), (1, 0), (0, 1), (0, 0)),
own AS (
    SELECT s."player_id" AS player_id, s."match_id" AS match_id, {_team_sql('s."seat"')} AS team,
           m."season" AS match_season, m."mode" AS match_mode, m."winner" AS winner,
           m."completed_at" AS completed_at,
           CASE WHEN m."winner" = {_team_sql('s."seat"')} THEN 1 ELSE 0 END AS won,
           CASE WHEN m."mode" = '{Mode.RANKED}' THEN COALESCE(({cups}), 0) ELSE 0 END AS cups
    FROM {seat} AS s
    JOIN {match} AS m ON m."id" = s."match_id"
    WHERE {players} AND m."status" = '{MatchStatus.FINALIZED}'
),
met AS (
    SELECT o.player_id,
           CASE WHEN {_team_sql('x."seat"')} = o.team THEN '{PairSide.PARTNER}'
                ELSE '{PairSide.OPPONENT}' END AS side,
           x."player_id" AS other_id, o.match_season, o.match_mode,
           COUNT(*) AS matches, SUM(o.won) AS won, SUM(o.cups) AS cups
    FROM own AS o
    JOIN {seat} AS x ON x."match_id" = o.match_id AND x."player_id" <> o.player_id
    GROUP BY 1, 2, 3, 4, 5
),
pairs AS (
    SELECT m.player_id, m.side, {_variant_sql("m")}, m.other_id,
           CAST(SUM(m.matches) AS bigint) AS matches, CAST(SUM(m.won) AS bigint) AS won,
           CAST(SUM(m.cups) AS bigint) AS cups
    FROM met AS m CROSS JOIN variants AS v
    GROUP BY 1, 2, 3, 4, 5
),
ordered AS (
    SELECT player_id, season, mode, match_id, completed_at, won,
           ROW_NUMBER() OVER ({within} {after}) AS position,
           ROW_NUMBER() OVER ({within}, won {after}) AS within_kind,
           COUNT(*) OVER ({within}) AS total,
           CASE WHEN LAG(won) OVER ({within} {after}) = won THEN 0 ELSE 1 END AS starts,
           CASE WHEN LEAD(won) OVER ({within} {after}) = won THEN 0 ELSE 1 END AS ends
    FROM (SELECT o.*, {_variant_sql("o")} FROM own AS o CROSS JOIN variants AS v) AS counted
),
runs AS (
    SELECT player_id, season, mode, won, COUNT(*) AS length,
           CASE WHEN MAX(position) = MAX(total) THEN 1 ELSE 0 END AS latest,
           MAX(CASE WHEN starts = 1 THEN match_id END) AS first_match,
           MAX(CASE WHEN starts = 1 THEN completed_at END) AS first_completed_at,
           MAX(CASE WHEN ends = 1 THEN match_id END) AS last_match,
           MAX(CASE WHEN ends = 1 THEN completed_at END) AS last_completed_at
    FROM ordered
    GROUP BY player_id, season, mode, won, position - within_kind
),
ended_runs AS (
    SELECT player_id, season, mode, CASE WHEN won = 1 THEN TRUE ELSE FALSE END AS won,
           first_completed_at, first_match, last_completed_at, last_match, length
    FROM runs WHERE latest = 0
),
streaks AS (
    SELECT player_id, season, mode,
           MAX(CASE WHEN won = 1 AND latest = 1 THEN length ELSE 0 END) AS win_current,
           MAX(CASE WHEN won = 1 THEN length ELSE 0 END) AS win_best,
           MAX(CASE WHEN won = 0 AND latest = 1 THEN length ELSE 0 END) AS loss_current,
           MAX(CASE WHEN won = 0 THEN length ELSE 0 END) AS loss_best,
           MAX(CASE WHEN latest = 1 THEN last_match END) AS last_match,
           MAX(CASE WHEN latest = 1 THEN last_completed_at END) AS last_completed_at,
           MAX(CASE WHEN latest = 1 THEN first_match END) AS current_first_match,
           MAX(CASE WHEN latest = 1 THEN first_completed_at END) AS current_first_completed_at
    FROM runs
    GROUP BY player_id, season, mode
),
shapes AS MATERIALIZED (
    SELECT o.player_id, o.match_season, o.match_mode, o.team, r."outcome" AS outcome,
           r."winner" AS winner, COALESCE(r."shutout_team", '') AS shutout_team, COUNT(*) AS rounds
    FROM own AS o
    JOIN {_table(Round)} AS r ON r."match_id" = o.match_id AND r."status" = '{RoundStatus.FINISHED}'
    GROUP BY 1, 2, 3, 4, 5, 6, 7
),
played AS (
    SELECT o.player_id, o.match_season, o.match_mode, {lines}
    FROM own AS o JOIN match_lines AS l ON l.winner = o.winner AND l.team = o.team
    UNION ALL
    SELECT a.player_id, a.match_season, a.match_mode,
           {", ".join(f"a.rounds * l.{name}" for name in fields)}
    FROM shapes AS a
    JOIN round_lines AS l ON l.outcome = a.outcome AND l.winner = a.winner
        AND l.shutout_team = a.shutout_team AND l.team = a.team
),
modes AS (
    SELECT p.player_id, {_variant_sql("p")},
           {", ".join(f"CAST(SUM(p.{name}) AS bigint) AS {name}" for name in fields)}
    FROM played AS p CROSS JOIN variants AS v
    WHERE v.every_mode = 0
    GROUP BY 1, 2, 3
)
"""


# --- the comparison ---------------------------------------------------------------------------


def _variant_label(season: int, mode: str) -> str:
    return f"{'all time' if season == ALL_SEASONS else f'season {season}'}, {mode}"


@dataclass(frozen=True)
class Figures:
    """One table of figures as the checker compares it: ``model``'s rows of one player are
    keyed by ``key`` and hold ``values`` (``written`` further columns are written but not
    compared); ``expected`` names the rows of :func:`expected_sql`. A stored row all of whose
    ``counts`` are 0 (left so by voids) holds no figure: it counts as no row."""

    model: type[Model]
    expected: str
    key: tuple[str, ...]
    values: tuple[str, ...]
    counts: tuple[str, ...]
    field: str
    subject: Callable[[int, tuple], str]
    shown: Callable[[tuple], object] = tuple
    written: tuple[str, ...] = ()

    def differences_sql(self, place: int, stored: str) -> str:
        """The rows of this table that differ, of the players that ``stored`` (a condition
        on ``t."player_id"``) names and :func:`expected_sql` counts: ``place``, the player id,
        the key in :data:`KEY_COLUMNS`, whether a row is stored and its values, whether one
        is expected and its values (NULLs up to :data:`VALUES_WIDTH`: no such column)."""
        key = ", ".join(
            f"COALESCE(e.{name}, s.{name})" if name in ("player_id", *self.key) else "NULL"
            for name in ("player_id", *KEY_COLUMNS)
        )
        padding = ", CAST(NULL AS bigint)" * (VALUES_WIDTH - len(self.values))
        was = ", ".join(f"s.{name}" for name in self.values) + padding
        now = ", ".join(f"e.{name}" for name in self.values) + padding
        columns = ", ".join(f't."{name}" AS {name}' for name in self.key + self.values)
        held = " OR ".join(f't."{name}" > 0' for name in self.counts)
        joined = " AND ".join(f"e.{name} = s.{name}" for name in ("player_id", *self.key))
        differ = " OR ".join(f"e.{name} IS DISTINCT FROM s.{name}" for name in self.values)
        return (
            f"SELECT {place}, {key}, s.player_id IS NOT NULL, {was}, "
            f"e.player_id IS NOT NULL, {now} "
            f"FROM {self.expected} AS e FULL OUTER JOIN ("
            f'SELECT t."player_id" AS player_id, {columns} FROM {_table(self.model)} AS t '
            f"WHERE {stored} AND ({held})"
            f") AS s ON {joined} WHERE {differ}"
        )

    def write_sql(self, players: str, cups: str) -> str:
        """Write the rows the history gives the players that ``players`` (a condition on
        ``s."player_id"``) names, in the order of the unique key."""
        names = ("player_id", *self.key, *self.values, *self.written)
        columns = ", ".join(f'"{name}"' for name in names)
        order = ", ".join(("player_id", *self.key))
        return (
            f"INSERT INTO {_table(self.model)} ({columns}) {expected_sql(players, cups)} "
            f"SELECT {', '.join(names)} FROM {self.expected} ORDER BY {order}"
        )


PAIRS = Figures(
    PairFigures,
    "pairs",
    key=("side", "season", "mode", "other_id"),
    values=("matches", "won", "cups"),
    counts=("matches",),
    field="matches, won, cups",
    subject=lambda player, key: (
        f"player {player}, {key[0]} {key[3]} ({_variant_label(key[1], key[2])})"
    ),
)
STREAKS = Figures(
    StreakFigures,
    "streaks",
    key=("season", "mode"),
    values=("win_current", "win_best", "loss_current", "loss_best", "last_match"),
    counts=("win_current", "win_best", "loss_current", "loss_best"),
    field="win_current, win_best, loss_current, loss_best, last_match",
    subject=lambda player, key: f"player {player}, streaks ({_variant_label(*key)})",
    written=("last_completed_at", "current_first_completed_at", "current_first_match"),
)
MODES = Figures(
    ModeStats,
    "modes",
    key=("season", "mode"),
    values=MODE_FIELDS,
    counts=MODE_FIELDS,
    field="counts",
    subject=lambda player, key: f"player {player}, statistics ({_variant_label(*key)})",
    shown=lambda values: dict(zip(MODE_FIELDS, values, strict=True)),
)
FIGURES = (PAIRS, STREAKS, MODES)
"""The tables checked, in the order a player's differences are reported."""
KEY_COLUMNS = ("side", "season", "mode", "other_id")
"""The key columns of every table of :data:`FIGURES`, in one order for their differences."""
VALUES_WIDTH = max(len(figures.values) for figures in FIGURES)


def _chunk_differences(
    cursor, players: Sequence[int], cups: str
) -> list[tuple[tuple, FigureDifference]]:
    """The differences of the human ``players``, each with its place in the report (player,
    table, key): one statement, which counts the players' matches once for every table."""
    seated, params = id_in('s."player_id"', players, cursor.db.vendor)
    stored, more = id_in('t."player_id"', players, cursor.db.vendor)
    branches = " UNION ALL ".join(
        figures.differences_sql(place, stored) for place, figures in enumerate(FIGURES)
    )
    cursor.execute(f"{expected_sql(seated, cups)} {branches}", params + more * len(FIGURES))
    found = []
    keys = 2 + len(KEY_COLUMNS)
    for row in cursor.fetchall():
        figures, player = FIGURES[row[0]], row[1]
        named = dict(zip(KEY_COLUMNS, row[2:keys], strict=True))
        key = tuple(named[name] for name in figures.key)
        size = len(figures.values)
        was, now = row[keys + 1 : keys + 1 + size], row[keys + 2 + VALUES_WIDTH :][:size]
        found.append(
            (
                (player, row[0], key),
                FigureDifference(
                    figures.subject(player, key),
                    figures.field,
                    figures.shown(was) if row[keys] else None,
                    figures.shown(now) if row[keys + 1 + VALUES_WIDTH] else None,
                ),
            )
        )
    found.sort(key=lambda item: item[0])
    return found


def _figures_write(cursor, players: Sequence[int], cups: str) -> None:
    """Write the rows the history gives ``players`` over their stored ones (deleted, then
    inserted from :func:`expected_sql`), and their ended streak runs, which the ladder counts
    a match completed before the latest one from (``stats.services``)."""
    vendor = cursor.db.vendor
    stored, params = id_in('"player_id"', players, vendor)
    models: list[type[Model]] = [*(figures.model for figures in FIGURES), EndedRun]
    for model in models:
        cursor.execute(f"DELETE FROM {_table(model)} WHERE {stored}", params)
    seated, params = id_in('s."player_id"', players, vendor)
    for figures in FIGURES:
        cursor.execute(figures.write_sql(seated, cups), params)
    columns = ", ".join(ENDED_COLUMNS)
    cursor.execute(
        f"INSERT INTO {_table(EndedRun)} ({columns}) {expected_sql(seated, cups)} "
        f"SELECT {columns} FROM ended_runs ORDER BY {', '.join(ENDED_COLUMNS[:3])}, first_match",
        params,
    )


ENDED_COLUMNS = (
    "player_id",
    "season",
    "mode",
    "won",
    "first_completed_at",
    "first_match",
    "last_completed_at",
    "last_match",
    "length",
)
"""The columns of an ended streak run (``stats.models.EndedRun``) that the history gives."""


def _reads_by_index(cursor) -> None:
    """Have PostgreSQL read a chunk's rows by their indexes for the rest of the transaction.
    A chunk is a few thousand players of tables of millions of rows, mostly in memory; priced
    at its default, a random read costs the planner four sequential ones, and it would read
    whole tables for each chunk, which makes the run quadratic. SQLite always reads by index."""
    if cursor.db.vendor == "postgresql":
        cursor.execute("SET LOCAL random_page_cost = 1.1")


def pairs_rebuild(
    report: Callable[[FigureDifference], None],
    *,
    cups: str,
    fix: bool = False,
    progress: Callable[[int], Callable[[int], None]] | None = None,
) -> None:
    """Count every human player's §12 figures and statistics per mode again from the
    history and hand each difference from the stored rows to ``report``, player by player
    (with ``fix``, write the history's rows over theirs): ``rebuild_ladder``'s check of them.
    One transaction per :data:`CHUNK` players, which with ``fix`` first locks them in id
    order, as the ladder's writers do, so a finalization running meanwhile waits or is read.
    ``cups`` is the SQL of the cups the player of a seat ``s`` got from its ranked match (one
    value, or none), which the app of the ledger provides. ``progress(total)`` may return a
    function called with the players of each chunk done."""
    humans = Player.objects.filter(is_bot=False)
    done = progress(humans.count()) if progress else None
    connection = connections[router.db_for_write(Player)]
    after = 0
    while True:
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            chunk = humans.filter(pk__gt=after).order_by("pk")
            if fix:
                chunk = chunk.select_for_update(no_key=True)
            ids = list(chunk.values_list("pk", flat=True)[:CHUNK])
            if not ids:
                return
            _reads_by_index(cursor)
            found = _chunk_differences(cursor, ids, cups)
            for _, difference in found:
                report(difference)
            if fix and found:
                _figures_write(cursor, sorted({place[0] for place, _ in found}), cups)
        after = ids[-1]
        if done:
            done(len(ids))

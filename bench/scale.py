"""Reads at a thousand and at a million players: is every read flat in the size of the ladder?

Run from the repository root, with PostgreSQL on 127.0.0.1:5432 (user ``postgres``, trust
authentication) and Redis on 127.0.0.1:6379::

    python -m bench.scale

It creates its own databases (``kort_scale_bench_<pid>_<size>``, one per size in
:data:`SIZES`; never the configured one), migrates them and fills each through SQL
(``INSERT ... SELECT`` over ``generate_series``, not the API): N human players on the current
season's board with a skewed cups distribution (a tenth of them share the 20 most common
totals, the rest spread over 3,000 totals), the board's counts built from them by the
product's own ``ranking.board.board_build``, and one player with H finalized ranked matches
(seats, rounds, cup changes, statistics, and their figures of KORT_RULES §12: a partner and
two opponents of each match, so H partners and 2H opponents, the figures per mode and the
streaks). It then times each read through Django's whole
request stack (the test client: middleware, URL routing, DRF, JSON) on either database, a
database router sending every query of a request to one of them. The requests alternate
between the sizes, so a machine busy with other work slows both alike; each figure is the
median of many requests. It prints::

    read NAME SMALL_ms LARGE_ms RATIO      one line per read (LARGE / SMALL)
    anchor redis_rank_ms X                  a ZREVRANK round trip on a small sorted set
    worst ratio R                           the largest RATIO

Lines starting with ``#`` say what was filled and how long it took. The databases are dropped
at the end, also after a failure. Exit status 1 if a read answers other than 200 or a read
of the board fell back to counting players.
"""

from __future__ import annotations

import base64
import logging
import os
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import psycopg

SERVER = "postgresql://postgres@127.0.0.1:5432"
DATABASE = f"kort_scale_bench_{os.getpid()}"
REDIS_URL = "redis://127.0.0.1:6379/10"
HOST = "localhost"  # one of the default ALLOWED_HOSTS

os.environ["DATABASE_URL"] = f"{SERVER}/{DATABASE}_small"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kort_site.settings")
os.environ.pop("CELERY_BROKER_URL", None)  # nothing here queues a task
os.environ.setdefault("DJANGO_CONN_MAX_AGE", "3600")  # one connection, as a busy worker has
os.environ["DJANGO_DEBUG"] = "false"  # debug would keep every query in memory
for _rate in ("KORT_THROTTLE_ANON", "KORT_THROTTLE_PLAYER", "KORT_THROTTLE_SERVICE"):
    os.environ[_rate] = "none"  # the reads are timed, not rationed
os.environ.setdefault("DJANGO_SECRET_KEY", base64.b64encode(os.urandom(48)).decode())


@dataclass(frozen=True)
class Size:
    """A ladder to fill: ``players`` on the board, ``history`` matches of one player."""

    name: str
    players: int
    history: int


SIZES = (Size("small", 1_000, 10), Size("large", 1_000_000, 100_000))
WARM_UP = 20
REPEATS = 300
HISTORY_PAGE = 10
"""Matches per history page (``page_size``): the small ladder's player has 10 matches, so both
sizes serialize pages of the same length and only the depth differs."""
POPULAR_TOTALS = [0, 8, 16, 24, 40, 56, 80, 100, 120, 150, 180, 210, 250, 300, 350, 400, 480,
                  560, 640, 800]  # fmt: skip
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def database_name(size: Size) -> str:
    return f"{DATABASE}_{size.name}"


def databases_create() -> None:
    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as server:
        for size in SIZES:
            server.execute(f'CREATE DATABASE "{database_name(size)}"')


def databases_drop() -> None:
    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as server:
        for size in SIZES:
            server.execute(f'DROP DATABASE IF EXISTS "{database_name(size)}" WITH (FORCE)')


class OneDatabase:
    """A database router sending every query to the database of one size (``OneDatabase.alias``,
    the size's name)."""

    alias = "default"

    def db_for_read(self, model, **hints):
        return OneDatabase.alias

    def db_for_write(self, model, **hints):
        return OneDatabase.alias

    def allow_relation(self, first, second, **hints):
        return True

    def allow_migrate(self, db, app_label, **hints):
        return True


def databases_configure() -> None:
    """One connection alias per size (``small`` is the configured default), and the router."""
    from django.conf import settings
    from django.db import connections

    default = connections.settings["default"]
    for size in SIZES:
        connections.settings[size.name] = {**default, "NAME": database_name(size)}
    settings.DATABASE_ROUTERS = [f"{__name__}.OneDatabase"]


# --- the fill ------------------------------------------------------------------------------------

PLAYERS_SQL = """
INSERT INTO players_player (username, username_key, display_name, display_name_key, is_bot,
                            is_banned, cups, best_cups, cups_changed_at, board_season, created_at)
SELECT 'bench.' || g, 'bench.' || g, 'Bench ' || g, 'bench ' || g, false, false, cups,
       greatest(cups, 0) + g %% 5,
       date_trunc('second', %(t0)s::timestamptz + random() * interval '30 days'), %(season)s,
       %(t0)s::timestamptz
FROM (
    SELECT g, CASE WHEN g %% 10 = 0 THEN (%(popular)s::int[])[1 + floor(random() * 20)::int]
                   ELSE floor((random() + random() + random()) * 1000)::int - 500 END AS cups
    FROM generate_series(1, %(players)s) AS g
) AS drawn
"""
"""N players: one in ten on one of the 20 popular totals, the others on a bell over -500..2500;
last changes spread over a month, to the second (so some share a time, and their id decides)."""

SEASON_STATS_SQL = """
INSERT INTO stats_seasonstats (player_id, season, matches_played, matches_won, matches_lost,
    rounds_played, rounds_won, bavan_called, bavan_made, kort_team, kort_opponents,
    at_kort_team, at_kort_opponents, bavan_team, bavan_opponents, at_bavan_team,
    at_bavan_opponents, bavan_failed_team, bavan_failed_opponents, ranked_played, ranked_won,
    cups, best_cups)
SELECT id, %(season)s, 1, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, cups, best_cups
FROM players_player
"""
"""Each player's row of the season (one ranked match played): what the season's board shows."""

MATCHES_SQL = """
INSERT INTO matches_match (id, mode, target_wins, status, first_trump_seat, next_trump_seat,
                           wins_a, wins_b, winner, client_version, require_play, created_at,
                           completed_at, finalized_at, season, void_reason)
SELECT g, 'ranked', 3, 'finalized', 0, 0, 3, 0, 'A', '', false, at, at, at, %(season)s, ''
FROM (SELECT g, %(t0)s::timestamptz + g * interval '1 minute' AS at
      FROM generate_series(1, %(history)s) AS g) AS numbered;
SELECT setval(pg_get_serial_sequence('matches_match', 'id'), %(history)s);
INSERT INTO matches_seat (match_id, seat, player_id, match_created_at)
SELECT m.id, s.seat,
       CASE WHEN s.seat = m.id %% 4 THEN %(player)s
            ELSE other + (other >= %(player)s)::int END,
       m.created_at
FROM matches_match AS m
CROSS JOIN generate_series(0, 3) AS s(seat)
CROSS JOIN LATERAL (
    SELECT 1 + (m.id * 4 + (s.seat - m.id %% 4 + 4) %% 4) %% (%(players)s - 1) AS other
) AS filler;
INSERT INTO matches_round (match_id, number, trump_seat, tricks_a, tricks_b, bavan_votes,
                           status, outcome, winner, wins_awarded, report, created_at)
SELECT m.id, r, 0, 7, 3, '[]', 'finished', 'win', 'A', 1, '{}', m.created_at
FROM matches_match AS m CROSS JOIN generate_series(1, 3) AS r;
INSERT INTO ranking_cupchange (kind, season, cups_after, match_id, player_id, delta, created_at)
SELECT 'match', %(season)s, 0, match_id, player_id, CASE WHEN seat IN (0, 2) THEN 8 ELSE -3 END,
       match_created_at
FROM matches_seat;
INSERT INTO stats_playerstats (player_id, matches_played, matches_won, matches_lost,
    rounds_played, rounds_won, bavan_called, bavan_made, kort_team, kort_opponents,
    at_kort_team, at_kort_opponents, bavan_team, bavan_opponents, at_bavan_team,
    at_bavan_opponents, bavan_failed_team, bavan_failed_opponents)
VALUES (%(player)s, %(history)s, %(history)s / 2, %(history)s - %(history)s / 2,
        3 * %(history)s, 3 * (%(history)s / 2), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
"""
"""H finalized ranked matches of one player (seat ``id % 4``, so they win half), each with
three other players, three rounds (A 3:0) and four cup changes; the player's statistics."""

FIGURES_SQL = """
INSERT INTO stats_pairfigures (player_id, other_id, side, season, mode, matches, won, cups)
SELECT h.player_id, o.player_id,
       CASE WHEN h.seat %% 2 = o.seat %% 2 THEN 'partner' ELSE 'opponent' END,
       v.season, v.mode, count(*), sum((h.seat %% 2 = 0)::int),
       sum(CASE WHEN h.seat %% 2 = 0 THEN 8 ELSE -3 END)
FROM matches_seat AS h
JOIN matches_seat AS o ON o.match_id = h.match_id AND o.player_id <> h.player_id
CROSS JOIN (VALUES (0, 'all'), (0, 'ranked'), (%(season)s, 'all'), (%(season)s, 'ranked'))
     AS v(season, mode)
WHERE h.player_id = %(player)s
GROUP BY 1, 2, 3, 4, 5;
INSERT INTO stats_modestats (player_id, season, mode, matches_played, matches_won,
    matches_lost, rounds_played, rounds_won, bavan_called, bavan_made, kort_team,
    kort_opponents, at_kort_team, at_kort_opponents, bavan_team, bavan_opponents, at_bavan_team,
    at_bavan_opponents, bavan_failed_team, bavan_failed_opponents)
SELECT player_id, v.season, 'ranked', matches_played, matches_won, matches_lost, rounds_played,
       rounds_won, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
FROM stats_playerstats CROSS JOIN (VALUES (0), (%(season)s)) AS v(season)
WHERE player_id = %(player)s;
CREATE TEMPORARY TABLE bench_runs ON COMMIT DROP AS
SELECT won, count(*) AS length, min(completed_at) AS first_at, min(id) AS first_match,
       max(completed_at) AS last_at, max(id) AS last_match,
       row_number() OVER (ORDER BY max(completed_at) DESC, max(id) DESC) AS newest
FROM (SELECT m.id, m.completed_at, (s.seat %% 2 = 0) = (m.winner = 'A') AS won,
             row_number() OVER (ORDER BY m.completed_at, m.id) - row_number() OVER (
                 PARTITION BY (s.seat %% 2 = 0) = (m.winner = 'A') ORDER BY m.completed_at, m.id
             ) AS island
      FROM matches_seat AS s JOIN matches_match AS m ON m.id = s.match_id
      WHERE s.player_id = %(player)s) AS games
GROUP BY won, island;
CREATE TEMPORARY TABLE bench_variants ON COMMIT DROP AS
SELECT * FROM (VALUES (0, 'all'), (0, 'ranked'), (%(season)s, 'all'), (%(season)s, 'ranked'))
     AS v(season, mode);
INSERT INTO stats_endedrun (player_id, season, mode, won, first_completed_at, first_match,
    last_completed_at, last_match, length)
SELECT %(player)s, v.season, v.mode, won, first_at, first_match, last_at, last_match, length
FROM bench_runs CROSS JOIN bench_variants AS v
WHERE newest > 1
ORDER BY v.season, v.mode, first_at, first_match;
INSERT INTO stats_streakfigures (player_id, season, mode, win_current, win_best, loss_current,
    loss_best, last_completed_at, last_match, current_first_completed_at, current_first_match)
SELECT %(player)s, v.season, v.mode, CASE WHEN c.won THEN c.length ELSE 0 END,
       (SELECT coalesce(max(length), 0) FROM bench_runs WHERE won),
       CASE WHEN c.won THEN 0 ELSE c.length END,
       (SELECT coalesce(max(length), 0) FROM bench_runs WHERE NOT won),
       c.last_at, c.last_match, c.first_at, c.first_match
FROM bench_runs AS c CROSS JOIN bench_variants AS v
WHERE c.newest = 1
"""
"""The player's figures of KORT_RULES §12 as the ladder keeps them: a row per partner and per
opponent for each season and mode the matches count in, the ranked figures (all of theirs),
and the streaks as the writer keeps them: the player's runs of won and lost matches (islands of
one result in completion order), the latest the current run of the streak row, the others
ended runs."""

TABLES = [
    "stats_pairfigures",
    "stats_streakfigures",
    "stats_endedrun",
    "stats_modestats",
    "ranking_cupchange",
    "ranking_boardcount",
    "ranking_boardtotal",
    "stats_playerstats",
    "stats_seasonstats",
    "matches_round",
    "matches_seat",
    "matches_match",
    "players_player",
]


@dataclass(frozen=True)
class Ladder:
    """What a fill made: the players at the top, the middle and the bottom of the board, the
    player with the history, how many players and matches."""

    top: int
    median: int
    bottom: int
    historian: int
    players: int
    history: int


def ladder_fill(size: Size) -> Ladder:
    from django.db import connections, transaction

    from ranking.board import board_build, current_season_number
    from ranking.selectors import board_page

    OneDatabase.alias = size.name
    connection = connections[size.name]
    season = current_season_number()
    historian = size.players // 3
    with transaction.atomic(using=size.name), connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE")
        cursor.execute("SELECT setseed(0.1404)")
        drawn: dict[str, Any] = {"t0": T0, "season": season, "popular": POPULAR_TOTALS}
        cursor.execute(PLAYERS_SQL, {**drawn, "players": size.players})
        cursor.execute(SEASON_STATS_SQL, {"season": season})
        params: dict[str, Any] = {
            "season": season,
            "t0": T0,
            "history": size.history,
            "player": historian,
            "players": size.players,
        }
        for statement in MATCHES_SQL.split(";"):
            cursor.execute(statement, params)
        for statement in FIGURES_SQL.split(";"):
            cursor.execute(statement, params)
        board_build(season)
    with connection.cursor() as cursor:  # fresh statistics and visibility for the planner
        for table in TABLES:
            cursor.execute(f"VACUUM (ANALYZE) {table}")
    rows = [board_page(rank - 1, 1).rows[0].player.id for rank in (1, size.players // 2)]
    bottom = board_page(size.players - 1, 1).rows[0].player.id
    return Ladder(rows[0], rows[1], bottom, historian, size.players, size.history)


# --- the reads -----------------------------------------------------------------------------------


def cursor_at(position: object) -> str:
    """A page cursor that starts after ``position`` (DRF's cursor encoding)."""
    return base64.b64encode(urlencode({"p": position}).encode()).decode()


def reads(ladder: Ladder) -> dict[str, str]:
    """Each read's path, by name. Deep pages start in the middle of what they page."""
    from django.urls import Resolver404, resolve

    from matches.history import Cursor as HistoryCursor
    from matches.models import Seat
    from players.models import Player
    from ranking.board import current_season_number
    from stats.models import ALL_MODES, ALL_SEASONS, PairFigures, PairSide
    from stats.selectors import PairCursor

    api = "/api/v1"
    half = ladder.players // 2
    quarter = ladder.players // 4
    middle_at, middle_id = (
        Seat.objects.filter(player_id=ladder.historian)
        .order_by("-match_created_at", "-match_id")
        .values_list("match_created_at", "match_id")[ladder.history // 2]
    )
    middle_match = HistoryCursor(middle_at, middle_id, newer=False).token()
    season_board = f"{api}/seasons/{current_season_number()}/leaderboard/"
    try:
        resolve(season_board)
    except Resolver404:  # no seasons endpoint: the current season's board is the leaderboard
        season_board = f"{api}/leaderboard/"
    history = f"{api}/players/{ladder.historian}/matches/?page_size={HISTORY_PAGE}"
    player = f"{api}/players/{ladder.historian}"

    def deep(side: PairSide) -> tuple[str, int]:
        """A cursor into the middle of the player's table of ``side``, and the other player
        of that row."""
        table = PairFigures.objects.filter(
            player_id=ladder.historian, side=side, season=ALL_SEASONS, mode=ALL_MODES
        ).order_by("-matches", "other_id")
        matches, other = table.values_list("matches", "other_id")[table.count() // 2]
        return PairCursor(matches, other, up=False).token(), other

    partners_deep, partner = deep(PairSide.PARTNER)
    opponents_deep, _ = deep(PairSide.OPPONENT)
    season = current_season_number()
    searched = Player.objects.get(pk=ladder.median).username
    return {
        "player_top": f"{api}/players/{ladder.top}/",
        "player_median": f"{api}/players/{ladder.median}/",
        "player_bottom": f"{api}/players/{ladder.bottom}/",
        "around_median": f"{api}/leaderboard/around/{ladder.median}/",
        "around_bottom": f"{api}/leaderboard/around/{ladder.bottom}/",
        "leaderboard_first": f"{api}/leaderboard/?limit=100",
        "leaderboard_offset_half": f"{api}/leaderboard/?limit=100&offset={half}",
        "players_list_first": f"{api}/players/",
        "players_list_deep": f"{api}/players/?cursor={cursor_at(half)}",
        "players_search": f"{api}/players/?{urlencode({'search': searched})}",
        "history_first": history,
        "history_deep": f"{history}&cursor={middle_match}",
        "stats": f"{api}/players/{ladder.historian}/stats/",
        "stats_ranked_season": f"{player}/stats/?mode=ranked&season={season}",
        "stats_room": f"{player}/stats/?mode=room",
        "partners_first": f"{player}/partners/?page_size={HISTORY_PAGE}",
        "partners_deep": f"{player}/partners/?page_size={HISTORY_PAGE}&cursor={partners_deep}",
        "partners_ranked_season": f"{player}/partners/?page_size={HISTORY_PAGE}&mode=ranked"
        f"&season={season}",
        "opponents_ranked_first": f"{player}/opponents/?page_size={HISTORY_PAGE}&mode=ranked",
        "opponents_deep": f"{player}/opponents/?page_size={HISTORY_PAGE}&cursor={opponents_deep}",
        "versus": f"{player}/versus/{partner}/",
        "versus_ranked_season": f"{player}/versus/{partner}/?mode=ranked&season={season}",
        "season_board_page": f"{season_board}?limit=100&offset={quarter}",
    }


class FellBack(logging.Handler):
    """Counts the warnings of board reads that did not trust the counts."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def read_times(paths: dict[str, dict[str, str]]) -> dict[str, dict[str, float]]:
    """``{size: {read: median ms}}`` for ``paths`` (``{size: {read: path}}``): each read
    requested on every size in turn, ``REPEATS`` times after ``WARM_UP``."""
    from django.test import Client

    client = Client(HTTP_HOST=HOST)
    times: dict[str, dict[str, list[float]]] = {size: {} for size in paths}
    for name in paths[SIZES[0].name]:
        for repeat in range(WARM_UP + REPEATS):
            for size, reads_of_size in paths.items():
                OneDatabase.alias = size
                start = time.perf_counter()
                response = client.get(reads_of_size[name])
                elapsed = time.perf_counter() - start
                if response.status_code != 200:
                    raise SystemExit(f"{size} {name}: {response.status_code} {response.content!r}")
                if repeat >= WARM_UP:
                    times[size].setdefault(name, []).append(elapsed)
    return {
        size: {name: statistics.median(values) * 1000 for name, values in named.items()}
        for size, named in times.items()
    }


def redis_rank_ms() -> float:
    """A ZREVRANK round trip on a 100-member sorted set: the cost of a rank held in Redis."""
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    key = f"{DATABASE}:anchor"
    client.zadd(key, {f"player{n}": n for n in range(100)})
    try:
        times = []
        for repeat in range(WARM_UP + 10 * REPEATS):
            start = time.perf_counter()
            client.zrevrank(key, "player50")
            if repeat >= WARM_UP:
                times.append(time.perf_counter() - start)
        return statistics.median(times) * 1000
    finally:
        client.delete(key)


def main() -> int:
    databases_create()
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        databases_configure()
        fell_back = FellBack()
        logging.getLogger("ranking.selectors").addHandler(fell_back)
        paths = {}
        for size in SIZES:
            call_command("migrate", database=size.name, verbosity=0)
            start = time.perf_counter()
            ladder = ladder_fill(size)
            filled = time.perf_counter() - start
            print(
                f"# {size.name}: {ladder.players:,} players, {ladder.history:,} matches of one "
                f"player, filled in {filled:.0f} s",
                flush=True,
            )
            paths[size.name] = reads(ladder)
        times = read_times(paths)
        connections.close_all()
        small, large = (times[size.name] for size in SIZES)
        ratios = {name: large[name] / small[name] for name in small}
        for name, ratio in ratios.items():
            print(f"read {name} {small[name]:.2f} {large[name]:.2f} {ratio:.2f}")
        print(f"anchor redis_rank_ms {redis_rank_ms():.3f}")
        print(f"worst ratio {max(ratios.values()):.2f}")
        if fell_back.count:
            print(f"# {fell_back.count} read(s) of the board fell back to counting players")
            return 1
        return 0
    finally:
        databases_drop()


if __name__ == "__main__":
    sys.exit(main())

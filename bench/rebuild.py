"""``rebuild_ladder`` on a large ladder: its time against a copy of the players table, and its
peak memory.

Run from the repository root, with PostgreSQL on 127.0.0.1:5432 (user ``postgres``, trust
authentication)::

    python -m bench.rebuild [--players N] [--matches M] [--history H] [--database NAME]

It creates its own database (``kort_rebuild_bench_<pid>`` unless ``--database`` names one,
which must not exist), migrates it and fills it as ``bench.scale`` does (N players on the
current season's board, one with H finalized ranked matches, their ledger and statistics),
plus M finalized ranked matches spread over all the players (four seats each, three rounds,
either team winning) whose cups, ledger rows and statistics are left out. Then it times, each
as its own ``manage.py rebuild_ladder`` process (wall time, and the process's peak resident
memory):

1. ``--fix``, which writes every player, statistics row and ledger row the fill left out;
2. the check, which then finds no difference;
3. ``--fix`` again, which then writes nothing (idempotent).

and ``CREATE TABLE ... AS SELECT * FROM`` the players table, the anchor. It prints::

    # what was filled and how long it took
    table_copy_s Y
    rebuild_STEP_s X          STEP: fix, check, fix_again
    rebuild_STEP_cpu_s C      the process's CPU time, user and system
    rebuild_STEP_peak_mb M
    rebuild_STEP_lines L      lines the command printed
    ratio rebuild_STEP X/Y

The database is dropped at the end, also after a failure. Exit status 1 if the check after
the fix finds a difference or the second fix writes anything.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from typing import Any

import psycopg

from bench import scale

SPREAD_SQL = """
INSERT INTO matches_match (id, mode, target_wins, status, first_trump_seat, next_trump_seat,
                           wins_a, wins_b, winner, client_version, require_play, created_at,
                           completed_at, finalized_at, season, void_reason)
SELECT g, 'ranked', 3, 'finalized', 0, 0, CASE WHEN g %% 2 = 0 THEN 3 ELSE 1 END,
       CASE WHEN g %% 2 = 0 THEN 0 ELSE 3 END, CASE WHEN g %% 2 = 0 THEN 'A' ELSE 'B' END,
       '', false, at, at, at, %(season)s, ''
FROM (SELECT g, %(t0)s::timestamptz + (g %% 40000) * interval '1 minute' + g * interval '1 ms'
        AS at
      FROM generate_series(%(first)s, %(last)s) AS g) AS numbered;
SELECT setval(pg_get_serial_sequence('matches_match', 'id'), %(last)s);
INSERT INTO matches_seat (match_id, seat, player_id, match_created_at)
SELECT m.id, s.seat, 1 + (m.id * 4 + s.seat) %% %(players)s, m.created_at
FROM matches_match AS m CROSS JOIN generate_series(0, 3) AS s(seat)
WHERE m.id BETWEEN %(first)s AND %(last)s;
INSERT INTO matches_round (match_id, number, trump_seat, tricks_a, tricks_b, bavan_votes,
                           status, outcome, winner, wins_awarded, report, created_at)
SELECT m.id, r, 0, 7, 3, '[]', 'finished', 'win',
       CASE WHEN m.id %% 2 = 0 OR r = 1 THEN 'A' ELSE 'B' END, 1, '{}', m.created_at
FROM matches_match AS m CROSS JOIN generate_series(1, 3 + m.id %% 2) AS r
WHERE m.id BETWEEN %(first)s AND %(last)s AND (m.id %% 2 = 0 OR r <= 4)
"""
"""M finalized ranked matches after the history's, each seating four consecutive players (so
every player sits in about 4M/N of them): even ones A 3:0, odd ones B 3:1."""


def fill(database: str, players: int, matches: int, history: int) -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    from ranking.board import current_season_number

    size = scale.Size("rebuild", players, history)
    connections.settings[size.name] = {**connections.settings["default"], "NAME": database}
    settings.DATABASE_ROUTERS = ["bench.scale.OneDatabase"]
    scale.OneDatabase.alias = size.name
    call_command("migrate", database=size.name, verbosity=0)
    start = time.perf_counter()
    scale.ladder_fill(size)
    params: dict[str, Any] = {
        "season": current_season_number(),
        "t0": scale.T0,
        "first": history + 1,
        "last": history + matches,
        "players": players,
    }
    with connections[size.name].cursor() as cursor:
        for statement in SPREAD_SQL.split(";"):
            cursor.execute(statement, params)
        for table in ("matches_match", "matches_seat", "matches_round"):
            cursor.execute(f"VACUUM (ANALYZE) {table}")
    connections.close_all()
    print(
        f"# {players:,} players, {history:,} matches of one player and {matches:,} spread, "
        f"filled in {time.perf_counter() - start:.0f} s",
        flush=True,
    )


def table_copy_s(url: str) -> float:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS bench_players_copy")
        start = time.perf_counter()
        connection.execute("CREATE TABLE bench_players_copy AS SELECT * FROM players_player")
        elapsed = time.perf_counter() - start
        connection.execute("DROP TABLE bench_players_copy")
    return elapsed


def rebuild(url: str, *args: str) -> tuple[float, float, float, int, int]:
    """``manage.py rebuild_ladder *args`` as a process: seconds, CPU seconds (user and
    system), peak MB, lines printed, exit status."""
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_DEBUG": "false"}
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "manage.py", "rebuild_ladder", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert child.stdout is not None
    lines = 0
    while block := child.stdout.read(1 << 20):
        lines += block.count(b"\n")
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return elapsed, cpu, usage.ru_maxrss / 1024, lines, child.returncode


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=1_000_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--history", type=int, default=100_000)
    parser.add_argument("--database", default=f"kort_rebuild_bench_{os.getpid()}")
    options = parser.parse_args()
    url = f"{scale.SERVER}/{options.database}"
    os.environ["DATABASE_URL"] = url
    with psycopg.connect(f"{scale.SERVER}/postgres", autocommit=True) as server:
        server.execute(f'CREATE DATABASE "{options.database}"')
    try:
        fill(options.database, options.players, options.matches, options.history)
        copy = table_copy_s(url)
        print(f"table_copy_s {copy:.3f}", flush=True)
        failed = False
        for step, args, clean in (
            ("fix", ("--fix",), None),
            ("check", (), 0),
            ("fix_again", ("--fix",), 0),
        ):
            elapsed, cpu, peak, lines, status = rebuild(url, *args)
            print(f"rebuild_{step}_s {elapsed:.1f}")
            print(f"rebuild_{step}_cpu_s {cpu:.1f}")
            print(f"rebuild_{step}_peak_mb {peak:.0f}")
            print(f"rebuild_{step}_lines {lines}")
            print(f"ratio rebuild_{step} {elapsed / copy:.0f}", flush=True)
            if clean is not None and (status != clean or lines != 1):
                print(f"# {step}: exit status {status}, {lines} line(s): expected no difference")
                failed = True
        return 1 if failed else 0
    finally:
        with psycopg.connect(f"{scale.SERVER}/postgres", autocommit=True) as server:
            server.execute(f'DROP DATABASE IF EXISTS "{options.database}" WITH (FORCE)')


if __name__ == "__main__":
    sys.exit(main())

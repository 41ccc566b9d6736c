"""A season's end at a million players: fast, exact while it runs, and the ladder checked after.

Run from the repository root, with PostgreSQL's server programs installed (Debian:
``postgresql``)::

    python -m bench.season_end

It starts its own PostgreSQL server (``tests.pgcluster``: ``initdb`` into a temporary
directory, a free loopback port, removed at the end) with :data:`SERVER_SETTINGS`: PostgreSQL's
defaults, autovacuum on among them, as a production server runs, with the naptime
docs/scaling.md ("Autovacuum") asks for, so the tables' own autovacuum settings act while the
matches are finalized.
``KORT_BENCH_SERVER`` (e.g. ``postgresql://postgres@127.0.0.1:5432``) runs it on that server
instead, whatever its settings. It fills two ladders there as ``bench.scale`` does (its own
databases, ``kort_season_end_bench_<pid>_<size>``, dropped at the end): 1,000 players, and
``KORT_BENCH_PLAYERS`` (default 1,000,000) with one player's history of a tenth of that; the
fill ends with a ``VACUUM`` of every table, as a new table has been vacuumed. Then:

1. ``KORT_BENCH_FINALIZATIONS`` (default 100,000) ranked matches of four players of the large
   ladder, completed by SQL, are finalized through the service (``match_finalize``), in
   :data:`WORKERS` processes, with no ``VACUUM`` but autovacuum's; the reads of
   ``bench.scale`` are timed again on both ladders (``KORT_BENCH_END=0`` stops here, after
   the read lines and ``worst ratio``);
2. the large ladder's current season is ended (``ranking.season_end.season_end``) while a
   reader thread asks leaderboard pages, players and "around" reads through the API at random
   and compares each answer with the board as it was before the end and as it must be after
   it (the reset totals, the new season's empty board);
3. ``manage.py rebuild_ladder`` (check mode) runs on the large ladder as a child process,
   timed, its peak memory measured by ``/usr/bin/time``. (The fill writes no replayable
   history, so it reports differences; its time and memory are what is measured.)
   ``KORT_BENCH_REBUILD=0`` leaves it out (its lines then read ``nan``).

The anchor is the time PostgreSQL takes to copy the large players table once (``CREATE TABLE
... AS SELECT *``), measured after the end. It prints::

    read NAME SMALL_ms LARGE_ms RATIO   each read after the finalizations (LARGE / SMALL)
    season_end_s X                      the whole end, claim to the reset written to every player
    table_copy_s Y                      the anchor
    ratio season_end X/Y
    finalize_wait_s F                   claim to the switch's commit: how long a match completed
                                        right after the claim waits for the next season to open
                                        (its players' reset is written with it, not after the
                                        whole reset)
    batch_ratio Z                       the slowest batch of the reset / the first
    reads_wrong N                       reads matching neither the board before nor after
    rebuild_s R
    rebuild_peak_mb M
    ratio rebuild R/Y
    worst ratio W                       the largest read RATIO

Lines starting with ``#`` say what was done and how long it took, and what autovacuum did
to each table the finalizations wrote.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import random
import re
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench import scale
from tests.pgcluster import PgCluster

PLAYERS = int(os.environ.get("KORT_BENCH_PLAYERS", "1000000"))
FINALIZATIONS = int(os.environ.get("KORT_BENCH_FINALIZATIONS", "100000"))
WORKERS = 3
"""Processes finalizing matches at once (each its own connection)."""
REBUILD = os.environ.get("KORT_BENCH_REBUILD", "1") != "0"
"""Whether ``rebuild_ladder`` runs after the end."""
REBUILD_TIMEOUT = int(os.environ.get("KORT_BENCH_REBUILD_TIMEOUT", "1800"))
"""Seconds ``rebuild_ladder`` may run before it is stopped (then its time is a lower bound)."""
REBUILD_MAX_MB = int(os.environ.get("KORT_BENCH_REBUILD_MAX_MB", "2048"))
"""The address space ``rebuild_ladder`` may take (MB): past it, it fails instead of taking the
machine's memory (the target is under 1 GB)."""
RADIUS = 5
PAGE = 100
END = os.environ.get("KORT_BENCH_END", "1") != "0"
"""False: stop after the reads that follow the finalizations (no season end, no rebuild)."""
SERVER_SETTINGS = {"shared_buffers": "128MB", "autovacuum": "on", "autovacuum_naptime": "10s"}
"""The private server's settings besides its address; everything else is PostgreSQL's
default (durability on, 3 autovacuum workers, cost delay 2 ms). The buffers and autovacuum are
the defaults already, written out because the figures depend on them: the buffers are those of
this machine's shared server (where the bench's reads were measured before), autovacuum is what
the bench measures. The naptime is the one docs/scaling.md ("Autovacuum") asks of a server
finalizing a hundred matches a second or more, as the bench does: with the default minute,
autovacuum looks at the players table too seldom for the rows a minute of finalizations
leaves dead."""

scale.DATABASE = f"kort_season_end_bench_{os.getpid()}"
scale.SIZES = (scale.Size("small", 1_000, 10), scale.Size("large", PLAYERS, PLAYERS // 10))
SMALL, LARGE = scale.SIZES


@contextmanager
def server() -> Iterator[None]:
    """Point ``bench.scale.SERVER`` at the server the bench runs on (its own, or
    ``KORT_BENCH_SERVER``) while the block runs, and the configured database at the small
    ladder's."""
    given = os.environ.get("KORT_BENCH_SERVER")
    if given:
        scale.SERVER = given
        os.environ["DATABASE_URL"] = f"{scale.SERVER}/{scale.database_name(SMALL)}"
        yield
        return
    with PgCluster(settings=SERVER_SETTINGS, bouncer=False) as cluster:
        scale.SERVER = cluster.server_url()
        os.environ["DATABASE_URL"] = f"{scale.SERVER}/{scale.database_name(SMALL)}"
        print(f"# a private PostgreSQL server on port {cluster.primary_port}", flush=True)
        yield


COMPLETED_SQL = """
INSERT INTO matches_match (mode, target_wins, status, first_trump_seat, next_trump_seat,
                           wins_a, wins_b, winner, client_version, require_play, created_at,
                           completed_at, season, void_reason)
SELECT 'ranked', 3, 'completed', 0, 0, 3, g %% 3, 'A', '', false, now(), now(), %(season)s, ''
FROM generate_series(1, %(matches)s) AS g;
INSERT INTO matches_seat (match_id, seat, player_id, match_created_at)
SELECT m.id, s.seat, first.id + s.seat, m.created_at
FROM matches_match AS m
CROSS JOIN LATERAL (SELECT 1 + floor(random() * (%(players)s - 4))::int + 0 * m.id AS id) AS first
CROSS JOIN generate_series(0, 3) AS s(seat)
WHERE m.status = 'completed';
INSERT INTO matches_round (match_id, number, trump_seat, tricks_a, tricks_b, bavan_votes,
                           status, outcome, winner, wins_awarded, report, created_at)
SELECT m.id, r, 0, CASE WHEN r > m.wins_b THEN 7 ELSE 3 END,
       CASE WHEN r > m.wins_b THEN 3 ELSE 7 END, '[]', 'finished', 'win',
       CASE WHEN r > m.wins_b THEN 'A' ELSE 'B' END, 1, '{}', m.created_at
FROM matches_match AS m
CROSS JOIN LATERAL generate_series(1, 3 + m.wins_b) AS r
WHERE m.status = 'completed'
"""
"""``matches`` ranked matches completed now, not finalized: four consecutive players each (from
a random one), A winning 3:0, 3:1 or 3:2 (the B rounds first)."""


def matches_complete(matches: int) -> list[int]:
    from django.db import connections

    from ranking.board import current_season_number

    scale.OneDatabase.alias = LARGE.name
    params = {"season": current_season_number(), "matches": matches, "players": LARGE.players}
    with connections[LARGE.name].cursor() as cursor:
        for statement in COMPLETED_SQL.split(";"):
            cursor.execute(statement, params)
        cursor.execute("SELECT id FROM matches_match WHERE status = 'completed' ORDER BY id")
        return [row[0] for row in cursor.fetchall()]


def default_is(size: scale.Size) -> None:
    """Make the size's database the default one (the services' transactions open on it) and
    send every query there."""
    from django.db import connections

    connections.close_all()
    connections.settings["default"]["NAME"] = scale.database_name(size)
    connections["default"].settings_dict["NAME"] = scale.database_name(size)
    scale.OneDatabase.alias = "default"


def finalize_part(match_ids: list[int]) -> int:
    """A worker process: finalize ``match_ids`` through the service, on the large ladder."""
    from ranking.services import match_finalize

    default_is(LARGE)
    return sum(match_finalize(match_id) for match_id in match_ids)


def finalizations_run(matches: int) -> None:
    from django.db import connections

    start = time.perf_counter()
    match_ids = matches_complete(matches)
    connections.close_all()
    parts = [match_ids[worker::WORKERS] for worker in range(WORKERS)]
    with multiprocessing.get_context("fork").Pool(WORKERS) as pool:
        finalized = sum(pool.map(finalize_part, parts))
    elapsed = time.perf_counter() - start
    print(f"# {finalized:,} matches finalized in {elapsed:.0f} s ({WORKERS} processes)", flush=True)
    if finalized != matches:
        raise SystemExit(f"{matches - finalized} match(es) not finalized")
    vacuums_show()


VACUUMS_SQL = """
SELECT relname, n_live_tup, n_dead_tup, n_tup_upd, n_tup_hot_upd, autovacuum_count,
       autoanalyze_count, pg_total_relation_size(relid)
FROM pg_stat_user_tables
WHERE n_tup_upd + n_tup_del > 0 OR autovacuum_count > 0
ORDER BY relname
"""


def vacuums_show() -> None:
    """A ``#`` line per table of the large ladder that was updated or autovacuumed: its rows
    live and dead, its updates (of them HOT), autovacuum's vacuums and analyzes, its size."""
    from django.db import connections

    with connections[LARGE.name].cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(VACUUMS_SQL)
        for name, live, dead, updated, hot, vacuums, analyzes, size in cursor.fetchall():
            print(
                f"# {name}: {live:,} live, {dead:,} dead, {updated:,} updates ({hot:,} HOT), "
                f"{vacuums} autovacuum(s), {analyzes} autoanalyze(s), {size / 2**20:.0f} MB",
                flush=True,
            )


# --- the end, and a reader checking every answer ------------------------------------------


@dataclass
class Board:
    """The large ladder's board before the end (ids in order, cups by id) and what the end
    makes of it (the reset totals)."""

    order: list[int]
    cups: dict[int, int]
    rank: dict[int, int]
    floor: int

    @classmethod
    def now(cls) -> Board:
        from django.conf import settings

        from ranking.board import board_players, current_season_number

        rows = list(board_players(current_season_number()).values_list("id", "cups"))
        order = [pid for pid, _ in rows]
        return cls(
            order,
            dict(rows),
            {pid: rank for rank, pid in enumerate(order, start=1)},
            settings.KORT_SEASON_RESET_FLOOR,
        )

    def page(self, offset: int) -> list[tuple[int, int, int]]:
        ids = self.order[offset : offset + PAGE]
        return [(offset + n + 1, pid, self.cups[pid]) for n, pid in enumerate(ids)]

    def reset(self, pid: int) -> int:
        from matches.kort.rules import season_reset_cups

        return season_reset_cups(self.cups[pid], self.floor)


@dataclass
class Reader:
    """Reads through the API until stopped, each compared with the board before and after."""

    board: Board
    stop: threading.Event = field(default_factory=threading.Event)
    reads: int = 0
    wrong: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def run(self) -> None:
        from django.db import connections
        from django.test import Client

        client = Client(HTTP_HOST=scale.HOST)
        draw = random.Random(19)
        try:
            while not self.stop.is_set():
                self.read_one(client, draw)
        finally:
            connections.close_all()

    def read_one(self, client, draw: random.Random) -> None:
        board = self.board
        kind = ("page", "player", "around")[self.reads % 3]
        self.reads += 1
        if kind == "page":
            offset = draw.randrange(len(board.order))
            body = client.get(f"/api/v1/leaderboard/?limit={PAGE}&offset={offset}").json()
            got = [(row["rank"], row["player"]["id"], row["cups"]) for row in body["results"]]
            before = (body["count"], got) == (len(board.order), board.page(offset))
            after = (body["count"], got) == (0, [])
        else:
            pid = draw.choice(board.order)
            if kind == "player":
                body = client.get(f"/api/v1/players/{pid}/").json()
                got_player = (body["cups"], body["rank"])
                before = got_player == (board.cups[pid], board.rank[pid])
                after = got_player == (board.reset(pid), None)
            else:
                response = client.get(f"/api/v1/leaderboard/around/{pid}/?radius={RADIUS}")
                rank = board.rank[pid]
                first = max(0, rank - 1 - RADIUS)
                expected = board.page(first)[: rank + RADIUS - first]
                if response.status_code == 200:
                    rows = response.json()["results"]
                    got = [(row["rank"], row["player"]["id"], row["cups"]) for row in rows]
                    before, after = got == expected, False
                else:
                    before, after = False, response.status_code == 404
        self.seen.add("after" if after else "before" if before else "wrong")
        if not (before or after):
            self.wrong.append(kind)


def season_end_timed() -> tuple[float, float, float]:
    """End the large ladder's season; its time, the time from the claim to the switch's
    commit (the season end logs each when it commits) and the ratio of the slowest batch of
    the reset (written after the switch, ``RESET_BATCH`` players a transaction, each logged when
    it commits) to the first."""
    from ranking.season_end import season_end

    stamps: list[tuple[float, str]] = []

    class Stamps(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            stamps.append((time.perf_counter(), record.getMessage()))

    logger = logging.getLogger("ranking.season_end")
    logger.setLevel(logging.INFO)
    handler = Stamps(logging.INFO)
    logger.addHandler(handler)
    start = time.perf_counter()
    try:
        season_end()
    finally:
        logger.removeHandler(handler)
    elapsed = time.perf_counter() - start
    times = [at for at, _ in stamps]
    spans = [later - earlier for earlier, later in zip([start, *times], times, strict=False)]
    named = ", ".join(f"{span:.2f}" for span in spans[:3])
    batches = [
        span for span, (_, message) in zip(spans, stamps, strict=True) if "written" in message
    ]
    print(
        f"# the end's transactions: claim, standings, switch {named} s; the reset's "
        f"{len(batches)} batches {sum(batches):.2f} s (first {batches[0]:.2f} s, slowest "
        f"{max(batches):.2f} s)",
        flush=True,
    )
    switched = [at for at, message in stamps if " finalized (" in message]
    wait = switched[0] - times[0] if switched else float("nan")
    return elapsed, wait, max(batches) / batches[0]


def table_copy_s() -> float:
    from django.db import connections

    with connections["default"].cursor() as cursor:
        start = time.perf_counter()
        cursor.execute("CREATE TABLE bench_players_copy AS SELECT * FROM players_player")
        elapsed = time.perf_counter() - start
        cursor.execute("DROP TABLE bench_players_copy")
    return elapsed


def rebuild_timed() -> tuple[float, float]:
    """``manage.py rebuild_ladder`` (check mode) on the large ladder: seconds, peak MB."""
    env = {**os.environ, "DATABASE_URL": f"{scale.SERVER}/{scale.database_name(LARGE)}"}
    command = ["/usr/bin/time", "-v", sys.executable, "manage.py", "rebuild_ladder"]
    limit = REBUILD_MAX_MB * 1024 * 1024

    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    start = time.perf_counter()
    try:
        done = subprocess.run(
            command,
            preexec_fn=capped,
            env=env,
            cwd=Path(__file__).resolve().parent.parent,
            capture_output=True,
            text=True,
            timeout=REBUILD_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        print(f"# rebuild_ladder stopped after {REBUILD_TIMEOUT} s", flush=True)
        return float(REBUILD_TIMEOUT), float("nan")
    elapsed = time.perf_counter() - start
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    lines = done.stdout.count("\n")
    print(f"# rebuild_ladder exit {done.returncode}, {lines:,} line(s) of output", flush=True)
    if "MemoryError" in done.stderr:
        print(f"# rebuild_ladder ran out of its {REBUILD_MAX_MB} MB", flush=True)
    return elapsed, int(peak.group(1)) / 1024 if peak else float("nan")


def main() -> int:
    with server():
        return bench()


def bench() -> int:
    scale.databases_create()
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        scale.databases_configure()
        logging.getLogger("django.request").setLevel(logging.ERROR)  # the 404s the end brings
        fell_back = scale.FellBack()
        logging.getLogger("ranking.selectors").addHandler(fell_back)
        paths = {}
        for size in scale.SIZES:
            call_command("migrate", database=size.name, verbosity=0)
            start = time.perf_counter()
            ladder = scale.ladder_fill(size)
            print(
                f"# {size.name}: {ladder.players:,} players, {ladder.history:,} matches of one "
                f"player, filled in {time.perf_counter() - start:.0f} s",
                flush=True,
            )
            paths[size.name] = scale.reads(ladder)
        finalizations_run(FINALIZATIONS)
        times = scale.read_times(paths)
        small, large = (times[size.name] for size in scale.SIZES)
        ratios = {name: large[name] / small[name] for name in small}
        for name, ratio in ratios.items():
            print(f"read {name} {small[name]:.2f} {large[name]:.2f} {ratio:.2f}", flush=True)
        if not END:
            print(f"worst ratio {max(ratios.values()):.2f}")
            return 1 if fell_back.count else 0

        default_is(LARGE)
        reader = Reader(Board.now())
        thread = threading.Thread(target=reader.run)
        thread.start()
        time.sleep(2)  # some reads of the board before the end
        end_s, wait_s, batch_ratio = season_end_timed()
        time.sleep(2)  # and some after it
        reader.stop.set()
        thread.join()
        print(f"# {reader.reads:,} reads during the end, answers seen: {sorted(reader.seen)}")
        copy_s = table_copy_s()
        connections.close_all()
        rebuild_s, rebuild_mb = rebuild_timed() if REBUILD else (float("nan"), float("nan"))

        print(f"season_end_s {end_s:.2f}")
        print(f"table_copy_s {copy_s:.3f}")
        print(f"ratio season_end {end_s / copy_s:.1f}")
        print(f"finalize_wait_s {wait_s:.2f}")
        print(f"batch_ratio {batch_ratio:.2f}")
        print(f"reads_wrong {len(reader.wrong)}")
        print(f"rebuild_s {rebuild_s:.1f}")
        print(f"rebuild_peak_mb {rebuild_mb:.0f}")
        print(f"ratio rebuild {rebuild_s / copy_s:.1f}")
        print(f"worst ratio {max(ratios.values()):.2f}")
        if fell_back.count:
            print(f"# {fell_back.count} read(s) of the board fell back to counting players")
        return 1 if fell_back.count or reader.wrong else 0
    finally:
        from django.db import connections

        connections.close_all()
        scale.databases_drop()


if __name__ == "__main__":
    sys.exit(main())

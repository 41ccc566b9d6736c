"""The service scaled out on this machine: two web hosts, two workers on separate queues, one
beat, a PostgreSQL primary and its streaming replica; with the replica and without it.

Run from the repository root, as root or as the ``postgres`` user, with PostgreSQL's server
programs, ``pgbench`` and ``redis-server`` installed::

    python -m bench.scale_out

It never touches the configured database. It makes a private primary and a streaming replica
(``tests.pgcluster``: ``initdb``, ``pg_basebackup -R``, no apply delay) and a private Redis
broker on free ports, migrates the primary, issues a service key, creates the players, and
initializes pgbench's TPC-B tables in a second database of the primary. Then, for each of two
setups, without the replica and with it (``DATABASE_REPLICA_URL``), it starts the services as
docs/production.md runs them on two hosts:

- two ``gunicorn -c gunicorn.conf.py kort_site.wsgi``, each one worker of four threads, on two
  ports; the clients split their load between them;
- ``KORT_TASK_ROUTES=ranking.finalize_match=finalize`` and two workers (``celery -A kort_site
  worker``), one on the ``finalize`` queue and one on the rest (``kort``), one process each;
- one ``celery -A kort_site beat``.

and runs three times: ``pgbench -c 4 -j 2 -T 8`` on the primary (the physical anchor), then a
mixed load: four game servers report whole ranked matches (``POST /api/v1/matches/`` with all
their rounds) while four readers, without credentials, read the leaderboard, players' profiles
and histories and the current season over keep-alive connections, until every match is
finalized. A run's figures: finalized matches/s (from the first request to the last
finalization), reads/s and the 99th percentile of a read (over the same time), each throughput
also as a ratio to pgbench's TPS, and the share of the rows read by the database that the
replica read (``pg_stat_database``: ``tup_returned + tup_fetched`` of both servers over the
run, read once the backends have reported them). The medians of the three runs of each setup
are printed, and last the line ``ratio replica_read_share X``: the median share with the
replica.

Every process it started is stopped and the cluster removed when it ends, also on Ctrl-C or an
error (then the end of each service's log is printed).
"""

from __future__ import annotations

import http.client
import os
import random
import secrets
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bench.http_ladder import (
    ApiClient,
    BenchFailed,
    MatchPlan,
    free_port,
    pgbench,
    pgbench_tps,
    plan_matches,
    private_broker,
    service,
    wait_until,
    web_answers,
)
from tests.pgcluster import PgCluster, missing_programs

RUNS = 3
MATCHES = 120
WRITERS = 4
READERS = 4
PLAYERS = 96
HOSTS = 2
PGBENCH_SCALE = 10
PGBENCH_RUN = ["-c", "4", "-j", "2", "-T", "8"]
STATS_SETTLE_SECONDS = 11
"""How long the bench waits, once a run's load has ended, for the backends that stay connected
to report the rows they read (PostgreSQL reports an idle backend's counts within 10 s)."""
FINALIZE_TIMEOUT = 180
ROUTES = "ranking.finalize_match=finalize"
SETUPS = {"without the replica": False, "with the replica": True}


def base_env(cluster: PgCluster, broker_port: int) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DATABASE_", "CELERY_", "KORT_", "DJANGO_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="kort_site.settings",
        DATABASE_URL=cluster.url(),
        CELERY_BROKER_URL=f"redis://127.0.0.1:{broker_port}/0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(48),
        DJANGO_DEBUG="0",
        KORT_THROTTLE_ANON="none",
        KORT_THROTTLE_PLAYER="none",
        KORT_THROTTLE_SERVICE="none",
        KORT_TASK_ROUTES=ROUTES,
    )
    return env


def setup_django(env: dict[str, str]) -> str:
    """Set this process up on the primary, migrate it and issue a service key."""
    import django

    os.environ.update(env)
    django.setup()
    from django.core.management import call_command
    from rest_framework_api_key.models import APIKey

    call_command("migrate", verbosity=0)
    return APIKey.objects.create_key(name="scale-out")[1]


def workers_answer(count: int) -> bool:
    from kort_site.celery import app

    return len(app.control.ping(timeout=0.5) or []) >= count


def all_finalized(match_ids: list[int]) -> bool:
    from matches.models import Match, MatchStatus

    pending = Match.objects.filter(pk__in=match_ids).exclude(status=MatchStatus.FINALIZED)
    return not pending.exists()


class Reader:
    """A player's browser: anonymous GETs over one keep-alive connection, timed."""

    def __init__(self, port: int, paths: list[str], seed: int):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.paths = paths
        self.rng = random.Random(seed)
        self.latencies: list[float] = []

    def read(self) -> None:
        path = self.rng.choice(self.paths)
        start = time.perf_counter()
        self.connection.request("GET", path)
        response = self.connection.getresponse()
        body = response.read()
        self.latencies.append(time.perf_counter() - start)
        if response.status != 200:
            raise BenchFailed(f"GET {path}: {response.status} {body[:300]!r}")


@dataclass(frozen=True)
class Run:
    finalized_per_second: float
    reads_per_second: float
    read_p99_ms: float
    replica_share: float
    tps: float

    def figures(self) -> dict[str, float]:
        return {
            "finalized/s": self.finalized_per_second,
            "reads/s": self.reads_per_second,
            "read p99 ms": self.read_p99_ms,
            "replica share": self.replica_share,
            "finalized/s per TPS": self.finalized_per_second / self.tps,
            "reads/s per TPS": self.reads_per_second / self.tps,
            "pgbench TPS": self.tps,
        }


def mixed_load(
    ports: list[int], key: str, plans: list[MatchPlan], players: list[int], seed: int
) -> tuple[float, float, float]:
    """Report ``plans`` whole from the writers while the readers read, until every match is
    finalized; (finalized matches/s, reads/s, read p99 in ms)."""
    paths = ["/api/v1/leaderboard/", "/api/v1/seasons/current/"]
    for player in players[:32]:
        paths += [f"/api/v1/players/{player}/", f"/api/v1/players/{player}/matches/"]
    jobs = list(plans)
    lock = threading.Lock()
    match_ids: list[int] = []
    failures: list[Exception] = []
    done = threading.Event()

    def write(client: ApiClient) -> None:
        try:
            while not failures:
                with lock:
                    if not jobs:
                        return
                    plan = jobs.pop()
                match_id = plan.report(client, True)
                with lock:
                    match_ids.append(match_id)
        except Exception as error:
            failures.append(error)

    def read(reader: Reader) -> None:
        try:
            while not done.is_set() and not failures:
                reader.read()
        except Exception as error:
            failures.append(error)

    writers = [ApiClient(ports[n % len(ports)], key) for n in range(WRITERS)]
    readers = [Reader(ports[n % len(ports)], paths, seed + n) for n in range(READERS)]
    start = time.perf_counter()
    threads = [threading.Thread(target=write, args=(w,), daemon=True) for w in writers]
    threads += [threading.Thread(target=read, args=(r,), daemon=True) for r in readers]
    for thread in threads:
        thread.start()
    for thread in threads[:WRITERS]:
        thread.join()
    deadline = time.monotonic() + FINALIZE_TIMEOUT
    while not failures and not all_finalized(match_ids):
        if time.monotonic() > deadline:
            failures.append(BenchFailed(f"matches not finalized after {FINALIZE_TIMEOUT} s"))
        time.sleep(0.05)
    elapsed = time.perf_counter() - start
    done.set()
    for thread in threads[WRITERS:]:
        thread.join()
    for client in writers:
        client.connection.close()
    for reader in readers:
        reader.connection.close()
    if failures:
        raise BenchFailed(f"the load failed: {failures[0]}")
    latencies = sorted(latency for reader in readers for latency in reader.latencies)
    p99 = 1000 * latencies[min(len(latencies) - 1, len(latencies) * 99 // 100)]
    return len(plans) / elapsed, len(latencies) / elapsed, p99


def rows(cluster: PgCluster) -> tuple[int, int]:
    assert cluster.replica_port is not None
    return cluster.rows_read(cluster.primary_port), cluster.rows_read(cluster.replica_port)


def setup_run(
    name: str,
    replica: bool,
    cluster: PgCluster,
    env: dict[str, str],
    key: str,
    players: list[int],
    tpcb_url: str,
    logs: Path,
) -> list[Run]:
    """Start the services of one setup, run the load :data:`RUNS` times, stop them."""
    env = dict(env)
    if replica:
        env["DATABASE_REPLICA_URL"] = cluster.url(cluster.replica_port)
    label = name.replace(" ", "-")
    with ExitStack() as stack:
        ports = [free_port() for _ in range(HOSTS)]
        webs = []
        for host, port in enumerate(ports):
            web_env = {**env, "GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_WORKERS": "1"}
            web_env["GUNICORN_ACCESSLOG"] = ""
            command = [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "kort_site.wsgi"]
            webs.append(stack.enter_context(service(f"{label}-web{host}", command, web_env, logs)))
        worker = [sys.executable, "-m", "celery", "-A", "kort_site", "worker"]
        worker += ["--loglevel", "info", "--concurrency", "1"]
        for queue in ("finalize", "kort"):
            command = [*worker, "-Q", queue, "-n", f"{queue}-{label}@%h"]
            last = stack.enter_context(service(f"{label}-worker-{queue}", command, env, logs))
        beat = [sys.executable, "-m", "celery", "-A", "kort_site", "beat", "--loglevel", "info"]
        beat += ["--schedule", str(logs / f"{label}-beat-schedule")]
        stack.enter_context(service(f"{label}-beat", beat, env, logs))
        for port, web in zip(ports, webs, strict=True):
            wait_until(partial(web_answers, port), "a web host", web)
        wait_until(lambda: workers_answer(2), "the workers", last)

        rng = random.Random(len(name))
        runs = []
        time.sleep(STATS_SETTLE_SECONDS)  # the start's reads reported
        after = rows(cluster)
        for number in range(1, RUNS + 1):
            tps = pgbench_tps(tpcb_url, PGBENCH_RUN)  # another database: not in the rows counted
            before = after
            plans = plan_matches(rng, players, MATCHES)
            finalized, reads, p99 = mixed_load(ports, key, plans, players, number)
            time.sleep(STATS_SETTLE_SECONDS)
            after = rows(cluster)
            primary, replica_rows = after[0] - before[0], after[1] - before[1]
            share = replica_rows / (primary + replica_rows) if primary + replica_rows else 0.0
            run = Run(finalized, reads, p99, share, tps)
            runs.append(run)
            print(f"  run {number}: {describe(run.figures())}", flush=True)
        return runs


def describe(figures: dict[str, float]) -> str:
    return (
        f"finalized {figures['finalized/s']:.1f}/s, reads {figures['reads/s']:.1f}/s "
        f"(p99 {figures['read p99 ms']:.1f} ms), replica share {figures['replica share']:.3f}; "
        f"per pgbench TPS: finalized {figures['finalized/s per TPS']:.5f}, reads "
        f"{figures['reads/s per TPS']:.5f} (pgbench {figures['pgbench TPS']:,.0f} TPS)"
    )


def bench(stack: ExitStack) -> None:
    cluster = stack.enter_context(PgCluster(apply_delay_ms=0))
    logs = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kort-scale-out-")))
    broker_port = private_broker(stack, logs)
    env = base_env(cluster, broker_port)
    key = setup_django(env)
    from django.db import connections

    stack.callback(connections.close_all)
    with cluster.connect(cluster.primary_port) as admin:
        admin.execute('CREATE DATABASE "tpcb"')
    tpcb_url = cluster.url(name="tpcb")
    pgbench(tpcb_url, "-i", "-s", str(PGBENCH_SCALE), "-q")
    cluster.replica_start()
    cluster.replica_caught_up(60)

    # The players, through one host of a first setup's web service.
    port = free_port()
    web_env = {**env, "GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_WORKERS": "1"}
    command = [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "kort_site.wsgi"]
    with service("players-web", command, {**web_env, "GUNICORN_ACCESSLOG": ""}, logs) as web:
        wait_until(lambda: web_answers(port), "the web service", web)
        client = ApiClient(port, key)
        run = secrets.token_hex(3)
        players = [
            client.post("/api/v1/players/", {"username": f"scale.{run}.{n}"})["id"]
            for n in range(PLAYERS)
        ]
        client.connection.close()

    print(
        f"{RUNS} runs per setup: {MATCHES} whole ranked matches from {WRITERS} game servers "
        f"while {READERS} readers read, {PLAYERS} players, {HOSTS} web hosts (1 gunicorn "
        f"worker x 4 threads each), workers on queues finalize and kort (1 process each), "
        f"one beat, {len(os.sched_getaffinity(0))} cores; anchor pgbench -i -s {PGBENCH_SCALE}, "
        f"{' '.join(PGBENCH_RUN)} on the primary",
        flush=True,
    )
    medians: dict[str, dict[str, float]] = {}
    for name, replica in SETUPS.items():
        print(f"{name}:", flush=True)
        runs = setup_run(name, replica, cluster, env, key, players, tpcb_url, logs)
        figures = [one.figures() for one in runs]
        medians[name] = {
            figure: statistics.median(one[figure] for one in figures) for figure in figures[0]
        }
    print(f"medians of {RUNS} runs")
    for name, median in medians.items():
        print(f"  {name}: {describe(median)}")
    print(f"ratio replica_read_share {medians['with the replica']['replica share']:.3f}")


def _stopped(*_: object) -> None:
    """SIGTERM unwinds like Ctrl-C: every service is stopped and the cluster removed."""
    sys.exit(128 + signal.SIGTERM)


def main() -> int:
    missing = [tool for tool in ("pgbench", "redis-server") if shutil.which(tool) is None]
    missing += missing_programs()
    if missing:
        print(f"missing: {', '.join(missing)}", file=sys.stderr)
        return 1
    signal.signal(signal.SIGTERM, _stopped)
    try:
        with ExitStack() as stack:
            bench(stack)
    except BenchFailed as failure:
        print(f"failed: {failure}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: the services are stopped and the cluster removed", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

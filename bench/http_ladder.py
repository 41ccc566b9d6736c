"""Ranked matches over HTTP against the service run as in production, next to pgbench.

Run from the repository root, with ``pgbench`` and ``redis-server`` on the path and a
PostgreSQL server that trusts ``postgres@127.0.0.1:5432``::

    python -m bench.http_ladder [--matches 200] [--clients 8] [--runs 3] [--players 128]

It never touches the configured database. It creates two throwaway databases
(``kort_httpbench_<run>_app`` and ``..._tpcb``) and a private Redis broker on a free port,
migrates the first, issues a service key, and starts the web service and the worker the way
docs/production.md runs them: ``gunicorn -c gunicorn.conf.py kort_site.wsgi`` (the
``GUNICORN_*`` variables of the environment apply) and ``celery -A kort_site worker --loglevel
info --concurrency 2``, with debug off, a random secret key and the throttles off. It creates
the players over HTTP, initializes pgbench's TPC-B tables (``pgbench -i -s 10``), then runs,
``--runs`` times:

1. ``pgbench -c 4 -j 2 -T 15``: the transactions per second of this machine's PostgreSQL;
2. round by round: ``--matches`` ranked matches of random legal rounds
   (``ranking.demo.random_match_rounds``), each ``POST /api/v1/matches/`` then one
   ``POST /api/v1/matches/{id}/rounds/`` per round, from ``--clients`` threads, each keeping
   one HTTP/1.1 connection alive;
3. whole: as many matches, each reported in one ``POST /api/v1/matches/`` with its ``rounds``.

After each of 2 and 3 it polls the database until every match is finalized. Per phase it
prints the requests per second and the median and 99th percentile latency of a request (until
the last answer), the matches finalized per second (from the first request until all are
finalized), the CPU time per match of the web service (gunicorn's master and workers), the
worker (Celery's processes), the database (the PostgreSQL backends of the bench's database,
read from ``/proc`` every 0.2 s: the WAL writer and checkpointer are not counted) and of this
process (the clients and the polling), and the ratio of finalized matches per second to pgbench's
transactions per second. Last come the medians of the runs, ending with the two lines
``ratio round_by_round X`` and ``ratio whole_match Y``.

Every process it started is stopped and both databases are dropped when it ends, also on
Ctrl-C, SIGTERM or an error (then the end of each service's log is printed). Exit status 1 if
a request fails or the matches are not finalized within ``--timeout`` seconds.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import random
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
SERVER = "postgres://postgres@127.0.0.1:5432"
WORKER_CONCURRENCY = 2  # as docs/production.md and compose.yaml run the worker
PGBENCH_SCALE = 10
PGBENCH_RUN = ["-c", "4", "-j", "2", "-T", "15"]
POLL_SECONDS = 0.05
SAMPLE_SECONDS = 0.2
START_SECONDS = 60
STOP_SECONDS = 30
LOG_TAIL_LINES = 30
TICK = os.sysconf("SC_CLK_TCK")
PARTS = ("web", "worker", "database", "client")


class BenchFailed(Exception):
    """A service did not start, a request did not answer as the contract says, or the matches
    were not finalized in time."""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200, help="ranked matches per phase")
    parser.add_argument("--clients", type=int, default=8, help="concurrent keep-alive clients")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--players", type=int, default=128, help="players the matches seat")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait a phase")
    return parser.parse_args()


# --- the throwaway databases, the broker and the services -----------------------------------


@contextmanager
def throwaway_database(name: str) -> Iterator[str]:
    """A new empty database on ``SERVER``, dropped (closing its connections) on exit; yields its
    URL."""
    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{SERVER}/{name}"
    finally:
        with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def service(
    name: str, command: list[str], env: dict[str, str], logs: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` with its output in ``logs/<name>.log`` until the block ends, then stop it
    (SIGTERM, SIGKILL after 30 s); yields the process. On an error the end of the log is
    printed."""
    log_path = logs / f"{name}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield process
    except Exception:
        lines = log_path.read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:]
        print(f"--- {name} ({' '.join(command[:3])} ...), last lines:", file=sys.stderr)
        print("\n".join(lines), file=sys.stderr)
        raise
    finally:
        process.terminate()
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_until(ready: Callable[[], bool], what: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchFailed(f"{what} exited with status {process.returncode}")
        try:
            if ready():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise BenchFailed(f"{what} did not start within {START_SECONDS} s")


def private_broker(stack: ExitStack, logs: Path) -> int:
    """A Redis broker of the bench's own on a free port, keeping nothing on disk and stopped
    with ``stack``; its port, once it answers."""
    port = free_port()
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1"]
    command += ["--save", "", "--appendonly", "no"]
    process = stack.enter_context(service("broker", command, dict(os.environ), logs))
    wait_until(lambda: redis_answers(port), "the broker", process)
    return port


def served_env(database_url: str, broker_port: int, web_port: int) -> dict[str, str]:
    """The environment the bench runs the services with: its database and broker, debug off, a
    random secret key, no request rates, gunicorn on ``web_port`` of the loopback."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kort_site.settings",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": f"redis://127.0.0.1:{broker_port}/0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(48),
        "DJANGO_DEBUG": "0",
        "KORT_THROTTLE_ANON": "none",
        "KORT_THROTTLE_PLAYER": "none",
        "KORT_THROTTLE_SERVICE": "none",
        "GUNICORN_BIND": f"127.0.0.1:{web_port}",
    }


def redis_answers(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
        connection.sendall(b"PING\r\n")
        return connection.recv(16).startswith(b"+PONG")


def web_answers(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/api/v1/leaderboard/")
        return connection.getresponse().status == 200
    finally:
        connection.close()


def worker_answers() -> bool:
    from kort_site.celery import app

    return bool(app.control.ping(timeout=0.5))


def setup_django(env: dict[str, str]) -> None:
    """Set this process up on the throwaway database and broker, and migrate the database."""
    import django

    os.environ.update(env)
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def service_key() -> str:
    from rest_framework_api_key.models import APIKey

    return APIKey.objects.create_key(name="http-ladder")[1]


def gunicorn_settings(command: list[str], env: dict[str, str]) -> dict[str, str]:
    """The settings gunicorn runs ``command`` with (its ``--print-config``), by name."""
    done = subprocess.run(
        [*command[:-1], "--print-config", command[-1]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    pairs = (line.partition(" = ") for line in done.stdout.splitlines())
    return {name.strip(): value.strip() for name, _, value in pairs}


def pgbench(url: str, *options: str) -> str:
    """Run pgbench on ``url``; its output."""
    done = subprocess.run(["pgbench", *options, url], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BenchFailed(f"pgbench {' '.join(options)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def pgbench_tps(url: str, run: Sequence[str] = PGBENCH_RUN) -> float:
    """Transactions per second of pgbench's TPC-B-like run with options ``run`` (without
    connection time)."""
    output = pgbench(url, *run)
    found = re.search(r"^tps = ([0-9.]+)", output, re.MULTILINE)
    if found is None:
        raise BenchFailed(f"no tps in pgbench's output:\n{output}")
    return float(found.group(1))


# --- CPU time from /proc --------------------------------------------------------------------


def proc_ticks(stat: str) -> tuple[int, int]:
    """``(ppid, utime + stime + cutime + cstime)`` from a ``/proc/<pid>/stat`` line."""
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[1]), sum(int(value) for value in fields[11:15])


def processes() -> Iterator[tuple[int, str]]:
    """``(pid, /proc/<pid>/stat)`` of every process still there while it is read."""
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                yield int(entry.name), Path(entry.path, "stat").read_text()
            except OSError:
                continue


def tree_seconds(root: int) -> float:
    """CPU seconds of ``root`` and its descendants, including their reaped children."""
    table = {pid: proc_ticks(stat) for pid, stat in processes()}
    tree, total, grown = {root}, 0, True
    while grown:
        before = len(tree)
        tree |= {pid for pid, (ppid, _) in table.items() if ppid in tree}
        grown = len(tree) > before
    for pid in tree:
        total += table.get(pid, (0, 0))[1]
    return total / TICK


def backend_ticks(database: str, exclude: int) -> dict[int, int]:
    """CPU ticks of each PostgreSQL process serving ``database`` (its title names it)."""
    ticks = {}
    for pid, stat in processes():
        if pid == exclude or "(postgres)" not in stat:
            continue
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split()
        except OSError:
            continue
        if database.encode() in title:
            ticks[pid] = proc_ticks(stat)[1]
    return ticks


class CpuMeter:
    """CPU seconds of the web service, the worker, the bench database's backends and this
    process between :meth:`start` and :meth:`stop`.

    Backends come and go (persistent connections are renewed after ``DJANGO_CONN_MAX_AGE``), so
    they are sampled every ``SAMPLE_SECONDS``: a backend's time counts from the start (or from
    its fork) until it was last seen.
    """

    def __init__(self, web: int, worker: int, database: str) -> None:
        self.roots = {"web": web, "worker": worker}
        self.database = database

    def start(self, exclude_backend: int) -> None:
        self.exclude = exclude_backend
        self.before = {part: tree_seconds(pid) for part, pid in self.roots.items()}
        self.client_before = time.process_time()
        self.first = backend_ticks(self.database, exclude_backend)
        self.last = dict(self.first)
        self.sampling = threading.Event()
        self.sampler = threading.Thread(target=self._sample, daemon=True)
        self.sampler.start()

    def _sample(self) -> None:
        while not self.sampling.wait(SAMPLE_SECONDS):
            self.last.update(backend_ticks(self.database, self.exclude))

    def stop(self) -> dict[str, float]:
        self.sampling.set()
        self.sampler.join()
        self.last.update(backend_ticks(self.database, self.exclude))
        backends = sum(ticks - self.first.get(pid, 0) for pid, ticks in self.last.items())
        return {
            **{part: tree_seconds(pid) - self.before[part] for part, pid in self.roots.items()},
            "database": backends / TICK,
            "client": time.process_time() - self.client_before,
        }


# --- the clients ----------------------------------------------------------------------------


class CountedConnection(http.client.HTTPConnection):
    """An HTTP/1.1 connection that counts how often it had to (re)connect."""

    opened = 0

    def connect(self) -> None:
        super().connect()
        self.opened += 1


class ApiClient:
    """One game server: a keep-alive connection reused for each request, with its latencies."""

    def __init__(self, port: int, key: str) -> None:
        self.connection = CountedConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Authorization": f"Api-Key {key}", "Content-Type": "application/json"}
        self.latencies: list[float] = []

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST ``body`` as JSON; the answer, which must be a 201.

        Raises:
            BenchFailed: any other status.
        """
        payload = json.dumps(body).encode()
        start = time.perf_counter()
        self.connection.request("POST", path, payload, self.headers)
        response = self.connection.getresponse()
        answer = response.read()
        self.latencies.append(time.perf_counter() - start)
        if response.status != 201:
            raise BenchFailed(f"POST {path}: {response.status} {answer[:500]!r}")
        return json.loads(answer)


@dataclass(frozen=True)
class MatchPlan:
    seats: list[int]
    first_trump_seat: int
    rounds: list[dict[str, Any]]

    def report(self, client: ApiClient, whole: bool) -> int:
        """Report the match through ``client``, round by round or ``whole``; its id."""
        body: dict[str, Any] = {
            "mode": "ranked",
            "seats": self.seats,
            "first_trump_seat": self.first_trump_seat,
        }
        numbered = [{"number": n, **r} for n, r in enumerate(self.rounds, start=1)]
        if whole:
            return client.post("/api/v1/matches/", {**body, "rounds": numbered})["id"]
        match_id = client.post("/api/v1/matches/", body)["id"]
        for report in numbered:
            client.post(f"/api/v1/matches/{match_id}/rounds/", report)
        return match_id


def create_players(port: int, key: str, count: int) -> list[int]:
    client = ApiClient(port, key)
    run = secrets.token_hex(3)
    return [
        client.post("/api/v1/players/", {"username": f"bench.{run}.{n}"})["id"]
        for n in range(count)
    ]


def plan_matches(rng: random.Random, players: list[int], count: int) -> list[MatchPlan]:
    from matches.kort.rules import Mode
    from ranking.demo import random_match_rounds

    plans = []
    for _ in range(count):
        first_trump_seat = rng.randrange(4)
        rounds = random_match_rounds(rng, Mode.RANKED, first_trump_seat)
        plans.append(MatchPlan(rng.sample(players, 4), first_trump_seat, rounds))
    return plans


def own_backend() -> int:
    """The pid of the PostgreSQL backend serving this process's queries."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def wait_until_finalized(match_ids: list[int], timeout: float) -> None:
    from matches.models import Match, MatchStatus

    deadline = time.monotonic() + timeout
    pending = Match.objects.filter(pk__in=match_ids).exclude(status=MatchStatus.FINALIZED)
    while pending.exists():
        if time.monotonic() > deadline:
            raise BenchFailed(f"{pending.count()} matches not finalized after {timeout} s")
        time.sleep(POLL_SECONDS)


# --- a phase and its figures ----------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """Where and how the phases report: the web service's port, the service key, the number of
    clients, the CPU meter and the seconds to wait for finalization."""

    port: int
    key: str
    clients: int
    meter: CpuMeter
    timeout: float


@dataclass(frozen=True)
class Phase:
    """What one phase measured: ``reported`` and ``finalized`` are seconds from the first
    request to the last answer and to the last finalization, ``cpu`` seconds by part."""

    matches: int
    latencies: list[float]
    connections: int
    reported: float
    finalized: float
    cpu: dict[str, float]

    def figures(self, tps: float) -> dict[str, float]:
        """Requests/s, latencies (p50, p99 in ms), finalized matches/s, its ratio to ``tps``
        and the CPU milliseconds per match of each part."""
        ranked = sorted(self.latencies)
        finalized = self.matches / self.finalized
        return {
            "requests/s": len(ranked) / self.reported,
            "p50": 1000 * ranked[len(ranked) // 2],
            "p99": 1000 * ranked[min(len(ranked) - 1, len(ranked) * 99 // 100)],
            "finalized/s": finalized,
            "ratio": finalized / tps,
            **{part: 1000 * self.cpu[part] / self.matches for part in PARTS},
        }


def run_phase(plans: list[MatchPlan], whole: bool, target: Target) -> Phase:
    """Report ``plans`` from ``target.clients`` threads, round by round or ``whole``, and wait
    until every match is finalized.

    Raises:
        BenchFailed: a request failed, or the matches were not finalized in time.
    """
    jobs: queue.SimpleQueue[MatchPlan] = queue.SimpleQueue()
    for plan in plans:
        jobs.put(plan)
    pool = [ApiClient(target.port, target.key) for _ in range(target.clients)]
    match_ids: list[int] = []
    failures: list[Exception] = []

    def serve(client: ApiClient) -> None:
        try:
            while not failures:
                try:
                    plan = jobs.get_nowait()
                except queue.Empty:
                    return
                match_ids.append(plan.report(client, whole))
        except Exception as error:
            failures.append(error)
        finally:
            client.connection.close()

    target.meter.start(own_backend())
    start = time.perf_counter()
    threads = [threading.Thread(target=serve, args=(client,), daemon=True) for client in pool]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reported = time.perf_counter() - start
    try:
        if failures:
            raise BenchFailed(f"a client failed: {failures[0]}")
        wait_until_finalized(match_ids, target.timeout)
        finalized = time.perf_counter() - start
    finally:
        cpu = target.meter.stop()
    return Phase(
        matches=len(plans),
        latencies=[latency for client in pool for latency in client.latencies],
        connections=sum(client.connection.opened for client in pool),
        reported=reported,
        finalized=finalized,
        cpu=cpu,
    )


def describe(figures: dict[str, float]) -> str:
    cpu = ", ".join(f"{part} {figures[part]:.1f} ms" for part in PARTS)
    return (
        f"{figures['requests/s']:,.1f} requests/s, p50 {figures['p50']:.1f} ms, "
        f"p99 {figures['p99']:.1f} ms; finalized {figures['finalized/s']:.1f} matches/s "
        f"(ratio {figures['ratio']:.4f}); CPU per match: {cpu}"
    )


PHASES = {"round_by_round": False, "whole_match": True}
"""The phases of a run by the name their ratio is printed with: whether a match is reported
whole."""


def bench(args: argparse.Namespace, stack: ExitStack) -> None:
    """Set everything up (torn down by ``stack``), then run and print the phases."""
    run = secrets.token_hex(3)
    database = f"kort_httpbench_{run}_app"
    app_url = stack.enter_context(throwaway_database(database))
    tpcb_url = stack.enter_context(throwaway_database(f"kort_httpbench_{run}_tpcb"))
    logs = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kort-http-ladder-")))
    broker_port, web_port = private_broker(stack, logs), free_port()
    env = served_env(app_url, broker_port, web_port)
    setup_django(env)
    from django.conf import settings
    from django.db import connections

    stack.callback(connections.close_all)  # before the databases are dropped
    key = service_key()
    pgbench(tpcb_url, "-i", "-s", str(PGBENCH_SCALE), "-q")

    web = ["gunicorn", "-c", "gunicorn.conf.py", "kort_site.wsgi"]
    worker = ["celery", "-A", "kort_site", "worker", "--loglevel", "info"]
    worker += ["--concurrency", str(WORKER_CONCURRENCY)]
    web_process = stack.enter_context(service("web", [sys.executable, "-m", *web], env, logs))
    worker_process = stack.enter_context(
        service("worker", [sys.executable, "-m", *worker], env, logs)
    )
    wait_until(lambda: web_answers(web_port), "the web service", web_process)
    wait_until(worker_answers, "the worker", worker_process)

    served = gunicorn_settings([sys.executable, "-m", *web], env)
    print(
        f"{args.runs} runs of {args.matches} ranked matches per phase from {args.clients} "
        f"keep-alive clients, {args.players} players, {len(os.sched_getaffinity(0))} cores"
    )
    print(
        f"web: {' '.join(web)} ({served['worker_class']}, {served['workers']} workers x "
        f"{served['threads']} threads, keep-alive {served['keepalive']} s)"
    )
    print(f"worker: {' '.join(worker)}")
    kept = settings.DATABASES["default"]
    print(
        f"database: {database} (connections kept {kept['CONN_MAX_AGE']} s, health checks "
        f"{'on' if kept['CONN_HEALTH_CHECKS'] else 'off'}); pgbench -i -s {PGBENCH_SCALE}, "
        f"then {' '.join(PGBENCH_RUN)} per run"
    )

    meter = CpuMeter(web_process.pid, worker_process.pid, database)
    target = Target(web_port, key, args.clients, meter, args.timeout)
    rng = random.Random(args.seed)
    players = create_players(web_port, key, args.players)
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in PHASES}
    for number in range(1, args.runs + 1):
        tps = pgbench_tps(tpcb_url)
        print(f"run {number}: pgbench {tps:,.0f} TPS")
        for name, whole in PHASES.items():
            phase = run_phase(plan_matches(rng, players, args.matches), whole, target)
            figures[name].append(phase.figures(tps))
            print(
                f"  {name}: {len(phase.latencies):,} requests on {phase.connections} "
                f"connections: {describe(figures[name][-1])}"
            )
    print(f"medians of {args.runs} runs")
    medians = {
        name: {figure: statistics.median(one[figure] for one in runs) for figure in runs[0]}
        for name, runs in figures.items()
    }
    for name, median in medians.items():
        print(f"  {name}: {describe(median)}")
    for name, median in medians.items():
        print(f"ratio {name} {median['ratio']:.4f}")


def main() -> int:
    args = parse_args()
    missing = [tool for tool in ("pgbench", "redis-server") if shutil.which(tool) is None]
    if missing:
        print(f"not on the path: {', '.join(missing)}", file=sys.stderr)
        return 1
    # SIGTERM unwinds like Ctrl-C: every service is stopped and the databases dropped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    try:
        with ExitStack() as stack:
            bench(args, stack)
    except BenchFailed as failure:
        print(f"failed: {failure}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: the services are stopped and the databases dropped", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

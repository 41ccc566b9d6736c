"""How fast the ladder recovers from broker outages (API.md "Conventions", "Nothing is lost"):
ranked matches keep coming while the broker's Redis is down, and every match completed meanwhile
is finalized once it is back, by the sweeper that Celery beat runs.

Run from the repository root, with ``redis-server`` on the path and a PostgreSQL server that
trusts ``postgres@127.0.0.1:5432``::

    python -m bench.outages [--rate 13] [--outages 3] [--down 12] [--between 30] \\
        [--players 128] [--history 1000]

It never touches the configured database. It creates a throwaway database and migrates it,
gives ``--players`` players ``--history`` finalized ranked matches each of the past (written
with SQL, their ladder, §12 figures and streak runs written by ``rebuild_ladder``'s fix, so an
out-of-order finalization meets a long history), and starts a private Redis broker on a free
port, the web service, the worker and Celery beat as docs/production.md runs them (``gunicorn
-c gunicorn.conf.py kort_site.wsgi``; ``celery -A kort_site worker --concurrency 2``; ``celery
-A kort_site beat``), with debug off and the throttles off. Then ``--clients`` game servers
report ``--rate`` whole ranked matches a second (one ``POST /api/v1/matches/`` each, random
legal rounds) for a warm-up of ``--between`` seconds and, ``--outages`` times, stop the broker
for ``--down`` seconds, start it again and go on for ``--between`` seconds. When the stream
ends, it waits until every match is finalized.

It prints, for each outage, the recovery: the seconds from the broker's return until the last
match completed while it was down was finalized; then the wait of a match (from its completion
to its finalization) outside the outages (the anchor: its median), the worst wait, how often
the worker lost the broker, and the recoveries and the worst wait as ratios to the anchor.
Last come the lines ``recovery worst X`` (seconds) and ``recovery ratio Y``. Exit
status 1 if a request failed, the worker exited, or the matches are not all finalized within
``--timeout`` seconds of the stream's end.

Every process it started is stopped and the database dropped when it ends, also on Ctrl-C,
SIGTERM or an error (then the end of each service's log is printed).
"""

from __future__ import annotations

import argparse
import os
import queue
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
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg

from bench.http_ladder import (
    ApiClient,
    BenchFailed,
    MatchPlan,
    create_players,
    free_port,
    plan_matches,
    redis_answers,
    served_env,
    service,
    service_key,
    setup_django,
    throwaway_database,
    wait_until,
    wait_until_finalized,
    web_answers,
    worker_answers,
)

WORKER_CONCURRENCY = 2  # as README "Production" and compose.yaml run the worker
HISTORY_DAYS = 30
"""The past the seeded history spreads over, up to a day ago."""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=13, help="matches reported per second")
    parser.add_argument("--outages", type=int, default=3)
    parser.add_argument("--down", type=float, default=12, help="seconds of each outage")
    parser.add_argument("--between", type=float, default=30, help="seconds around outages")
    parser.add_argument("--players", type=int, default=128, help="players the matches seat")
    parser.add_argument("--history", type=int, default=1000, help="past matches per player")
    parser.add_argument("--clients", type=int, default=8, help="concurrent keep-alive clients")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait at the end")
    return parser.parse_args()


class Broker:
    """The bench's own Redis broker on a fixed free port, keeping nothing on disk, which the
    bench stops and starts again (each life's output in ``logs/broker-<life>.log``); stopped
    with the stack it is made with."""

    def __init__(self, stack: ExitStack, logs: Path) -> None:
        self.port = free_port()
        self.logs = logs
        self.lives = 0
        self.life = ExitStack()
        stack.callback(self.stop)

    def start(self) -> None:
        self.lives += 1
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no"]
        process = self.life.enter_context(
            service(f"broker-{self.lives}", command, dict(os.environ), self.logs)
        )
        wait_until(lambda: redis_answers(self.port), "the broker", process)

    def stop(self) -> None:
        self.life.close()


LOST = "Connection to broker lost"
"""What the worker logs when it loses the broker and starts reconnecting."""


def history_seeded(url: str, players: list[int], per_player: int, rng: random.Random) -> int:
    """Write ``per_player`` finalized ranked matches of the past for each of ``players`` (four
    of them at random per match, team A or B winning at random), spread over
    :data:`HISTORY_DAYS`; how many matches. Their figures are written afterwards."""
    count = len(players) * per_player // 4
    start = datetime.now(UTC) - timedelta(days=HISTORY_DAYS + 1)
    step = timedelta(days=HISTORY_DAYS) / max(1, count)
    with psycopg.connect(url, autocommit=True) as database, database.cursor() as cursor:
        times = [start + step * n for n in range(count)]
        winners = [rng.choice("AB") for _ in range(count)]
        cursor.execute(
            "INSERT INTO matches_match (mode, target_wins, status, first_trump_seat, "
            "next_trump_seat, wins_a, wins_b, winner, client_version, require_play, created_at, "
            "completed_at, finalized_at, season, void_reason) "
            "SELECT 'ranked', 3, 'finalized', 0, 0, CASE WHEN w = 'A' THEN 3 ELSE 0 END, "
            "CASE WHEN w = 'B' THEN 3 ELSE 0 END, w, '', false, t, t, t, 1, '' "
            "FROM unnest(%s::timestamptz[], %s::text[]) AS u (t, w) ORDER BY t RETURNING id, "
            "created_at",
            [times, winners],
        )
        matches = cursor.fetchall()
        with cursor.copy(
            "COPY matches_seat (match_id, seat, player_id, match_created_at) FROM STDIN"
        ) as copy:
            for match_id, created_at in matches:
                for seat, player_id in enumerate(rng.sample(players, 4)):
                    copy.write_row((match_id, seat, player_id, created_at))
        cursor.execute("ANALYZE")
    return count


def figures_written() -> None:
    """The ladder, §12 figures and streak runs of the seeded history, as ``rebuild_ladder
    --fix`` writes them."""
    from ranking.rebuild import ladder_rebuild

    ladder_rebuild(fix=True, report=lambda difference: None)


@dataclass
class Stream:
    """Matches reported at a steady rate from a pool of clients until :meth:`stop`: each
    match's id once answered."""

    plans: queue.SimpleQueue[MatchPlan]
    rate: float
    pool: list[ApiClient]
    match_ids: list[int] = field(default_factory=list)
    failures: list[Exception] = field(default_factory=list)
    stopped: threading.Event = field(default_factory=threading.Event)

    def start(self) -> None:
        self.started = time.monotonic()
        self.sent = 0
        self.lock = threading.Lock()
        self.threads = [
            threading.Thread(target=self._serve, args=(client,), daemon=True)
            for client in self.pool
        ]
        for thread in self.threads:
            thread.start()

    def _next_send(self) -> float:
        with self.lock:
            due = self.started + self.sent / self.rate
            self.sent += 1
            return due

    def _serve(self, client: ApiClient) -> None:
        try:
            while not self.stopped.is_set() and not self.failures:
                due = self._next_send()
                if self.stopped.wait(max(0.0, due - time.monotonic())):
                    return
                self.match_ids.append(self.plans.get_nowait().report(client, whole=True))
        except Exception as error:
            self.failures.append(error)
        finally:
            client.connection.close()

    def stop(self) -> None:
        self.stopped.set()
        for thread in self.threads:
            thread.join()
        if self.failures:
            raise BenchFailed(f"a client failed: {self.failures[0]}")


@dataclass(frozen=True)
class Outage:
    """When the broker went down, and when it answered again."""

    down: datetime
    back: datetime


def waits(match_ids: list[int]) -> list[tuple[datetime, float]]:
    """Each match's completion time and the seconds from it to its finalization."""
    from matches.models import Match

    rows = Match.objects.filter(pk__in=match_ids).values_list("completed_at", "finalized_at")
    measured = []
    for done, final in rows:
        assert done is not None and final is not None  # every match is finalized by now
        measured.append((done, (final - done).total_seconds()))
    return measured


def bench(args: argparse.Namespace, stack: ExitStack) -> None:
    rng = random.Random(args.seed)
    run = secrets.token_hex(3)
    database = f"kort_outages_{run}"
    url = stack.enter_context(throwaway_database(database))
    logs = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kort-outages-")))
    broker = Broker(stack, logs)
    broker.start()
    web_port = free_port()
    env = served_env(url, broker.port, web_port)
    setup_django(env)
    from django.conf import settings
    from django.db import connections

    stack.callback(connections.close_all)  # before the database is dropped
    key = service_key()
    web = ["gunicorn", "-c", "gunicorn.conf.py", "kort_site.wsgi"]
    worker = ["celery", "-A", "kort_site", "worker"]
    worker += ["--loglevel", "info", "--concurrency", str(WORKER_CONCURRENCY)]
    beat = ["celery", "-A", "kort_site", "beat", "--loglevel", "info"]
    beat += ["--schedule", str(logs / "celerybeat-schedule")]
    web_process = stack.enter_context(service("web", [sys.executable, "-m", *web], env, logs))
    wait_until(lambda: web_answers(web_port), "the web service", web_process)
    players = create_players(web_port, key, args.players)
    seeded = history_seeded(url, players, args.history, rng)
    figures_written()
    worker_process = stack.enter_context(
        service("worker", [sys.executable, "-m", *worker], env, logs)
    )
    wait_until(worker_answers, "the worker", worker_process)
    stack.enter_context(service("beat", [sys.executable, "-m", *beat], env, logs))

    print(
        f"{args.rate:g} ranked matches/s from {args.clients} keep-alive clients, "
        f"{args.players} players with {args.history} past matches each ({seeded:,} matches); "
        f"{args.outages} outages of {args.down:g} s, {args.between:g} s apart; "
        f"{len(os.sched_getaffinity(0))} cores"
    )
    print(
        f"worker: {' '.join(worker)}; beat sweeps every {settings.KORT_SWEEP_SECONDS} s, "
        f"work lost after {settings.KORT_SWEEP_GRACE_SECONDS} s"
    )

    total = int(args.rate * (args.between + args.outages * (args.down + args.between)) * 1.5)
    plans: queue.SimpleQueue[MatchPlan] = queue.SimpleQueue()
    for plan in plan_matches(rng, players, total):
        plans.put(plan)
    stream = Stream(plans, args.rate, [ApiClient(web_port, key) for _ in range(args.clients)])
    stream.start()
    outages = []
    try:
        time.sleep(args.between)
        for number in range(1, args.outages + 1):
            down = datetime.now(UTC)
            broker.stop()
            time.sleep(args.down)
            broker.start()
            outages.append(Outage(down, datetime.now(UTC)))
            print(f"outage {number}: the broker was down {args.down:g} s")
            time.sleep(args.between)
    finally:
        stream.stop()
    wait_until_finalized(stream.match_ids, args.timeout)

    measured = waits(stream.match_ids)
    calm = [
        wait
        for done, wait in measured
        if not any(outage.down <= done < outage.back for outage in outages)
    ]
    anchor = statistics.median(calm)
    if worker_process.poll() is not None:
        raise BenchFailed(f"the worker exited with status {worker_process.returncode}")
    losses = (logs / "worker.log").read_text(errors="replace").count(LOST)
    print(f"{len(measured):,} matches reported, all finalized; the broker was lost {losses}x")
    print(f"anchor: median wait outside the outages {anchor:.2f} s")
    recoveries = []
    for number, outage in enumerate(outages, start=1):
        during = [
            done + timedelta(seconds=wait)
            for done, wait in measured
            if outage.down <= done < outage.back
        ]
        last = max(during, default=outage.back)
        recovery = max(0.0, (last - outage.back).total_seconds())
        recoveries.append(recovery)
        worst = max((w for d, w in measured if outage.down <= d < outage.back), default=0.0)
        print(
            f"outage {number}: {len(during)} matches completed while down; all finalized "
            f"{recovery:.1f} s after the broker came back (ratio {recovery / anchor:.1f}); "
            f"their worst wait {worst:.1f} s"
        )
    worst_wait = max(wait for _, wait in measured)
    print(f"worst wait {worst_wait:.1f} s (ratio {worst_wait / anchor:.1f})")
    print(f"recovery worst {max(recoveries):.1f}")
    print(f"recovery ratio {max(recoveries) / anchor:.1f}")


def main() -> int:
    args = parse_args()
    if shutil.which("redis-server") is None:
        print("not on the path: redis-server", file=sys.stderr)
        return 1
    # SIGTERM unwinds like Ctrl-C: every service is stopped and the database dropped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    try:
        with ExitStack() as stack:
            bench(args, stack)
    except BenchFailed as failure:
        print(f"failed: {failure}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: the services are stopped and the database dropped", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

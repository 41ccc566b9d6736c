"""What one ``GET /health/ready`` and one ``GET /metrics`` cost through gunicorn (API.md
"Operating the service"), next to the round trips they are made of.

Run from the repository root, with ``redis-server`` on the path and a PostgreSQL server that
trusts ``postgres@127.0.0.1:5432``::

    python -m bench.ops [--requests 100] [--finalized 100000]

It never touches the configured database: it creates a throwaway one (dropped at the end),
migrates it, writes ``--finalized`` finalized matches into it (one SQL statement), starts a
private Redis broker on a free port and the web service as docs/production.md runs it
(``gunicorn -c gunicorn.conf.py kort_site.wsgi``, two workers, ``PROMETHEUS_MULTIPROC_DIR`` in a
temporary directory, debug off). Then, ``--requests`` times each, on one keep-alive connection:
a Redis ``PING`` and a PostgreSQL ``SELECT 1`` from this process (the physical anchors: a
readiness check is one of each), ``GET /health/live`` (gunicorn and Django alone), ``GET
/health/ready`` and ``GET /metrics``. It prints the median and the 90th percentile of each in
milliseconds, the median of each request in Redis round trips, and one scrape's size and its
ladder's lines.
"""

from __future__ import annotations

import argparse
import http.client
import os
import secrets
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import psycopg

from bench.http_ladder import (
    BenchFailed,
    free_port,
    private_broker,
    served_env,
    service,
    setup_django,
    throwaway_database,
    wait_until,
)

FINALIZED_MATCHES = """
INSERT INTO matches_match (mode, target_wins, status, first_trump_seat, next_trump_seat,
    wins_a, wins_b, winner, client_version, require_play, created_at, completed_at,
    finalized_at, season, void_reason)
SELECT 'ranked', 3, 'finalized', 0, 0, 3, 0, 'A', '', false, now(), now(), now(), 1, ''
FROM generate_series(1, %s)
"""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100, help="requests of each kind")
    parser.add_argument("--finalized", type=int, default=100_000, help="finalized matches")
    return parser.parse_args()


def timed(call: Callable[[], object], count: int) -> list[float]:
    """The milliseconds of ``count`` calls of ``call``, after one untimed call."""
    call()
    times = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return times


def redis_ping(port: int) -> Callable[[], object]:
    connection = socket.create_connection(("127.0.0.1", port))

    def ping() -> None:
        connection.sendall(b"PING\r\n")
        if not connection.recv(16).startswith(b"+PONG"):
            raise BenchFailed("Redis did not answer PONG")

    return ping


def get(connection: http.client.HTTPConnection, path: str) -> Callable[[], bytes]:
    def call() -> bytes:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise BenchFailed(f"{path} answered {response.status}: {body[:200]!r}")
        return body

    return call


def live(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        return bool(get(connection, "/health/live")())
    finally:
        connection.close()


def bench(args: argparse.Namespace, stack: ExitStack) -> None:
    url = stack.enter_context(throwaway_database(f"kort_opsbench_{secrets.token_hex(3)}"))
    logs = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kort-ops-")))
    broker_port, web_port = private_broker(stack, logs), free_port()
    env = {**served_env(url, broker_port, web_port), "GUNICORN_WORKERS": "2"}
    env["GUNICORN_ACCESSLOG"] = ""
    setup_django(env)
    from django.db import connections

    stack.callback(connections.close_all)
    with psycopg.connect(url, autocommit=True) as database:
        database.execute(FINALIZED_MATCHES, (args.finalized,))
        database.execute("ANALYZE matches_match")
    web = [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "kort_site.wsgi"]
    served = {**env, "PROMETHEUS_MULTIPROC_DIR": str(logs / "metrics")}
    web_process = stack.enter_context(service("web", web, served, logs))
    wait_until(lambda: live(web_port), "the web service", web_process)
    client = http.client.HTTPConnection("127.0.0.1", web_port, timeout=10)
    stack.callback(client.close)

    database = stack.enter_context(psycopg.connect(url, autocommit=True))
    times = {
        "redis PING": timed(redis_ping(broker_port), args.requests),
        "postgres SELECT 1": timed(lambda: database.execute("SELECT 1").fetchone(), args.requests),
        "GET /health/live": timed(get(client, "/health/live"), args.requests),
        "GET /health/ready": timed(get(client, "/health/ready"), args.requests),
        "GET /metrics": timed(get(client, "/metrics"), args.requests),
    }
    print(
        f"{args.requests} of each on one keep-alive connection; gunicorn 2 workers; "
        f"{args.finalized:,} finalized matches; {len(os.sched_getaffinity(0))} cores"
    )
    anchor = statistics.median(times["redis PING"])
    for name, samples in times.items():
        median = statistics.median(samples)
        p90 = statistics.quantiles(samples, n=10)[-1]
        print(
            f"  {name:<18} median {median:7.3f} ms  p90 {p90:7.3f} ms  "
            f"= {median / anchor:6.1f} Redis round trips"
        )
    scrape = get(client, "/metrics")().decode()
    print(f"one scrape: {len(scrape):,} bytes, {len(scrape.splitlines())} lines; the ladder's:")
    for line in scrape.splitlines():
        if line.startswith(("kort_matches", "kort_votes", "kort_queue", "kort_season")):
            print(f"  {line}")


def main() -> int:
    args = parse_args()
    try:
        with ExitStack() as stack:
            bench(args, stack)
    except BenchFailed as failure:
        print(f"failed: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

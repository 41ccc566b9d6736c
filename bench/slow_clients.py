"""Requests answered while slow clients hold connections, gunicorn alone and behind nginx.

Usage: python -m bench.slow_clients [--clients 50] [--seconds 5] [--timeout 2]

gunicorn runs with gunicorn.conf.py (2 workers of 4 threads, as compose.yaml sizes it) on a
SQLite file of its own, and nginx in front of it with deploy/nginx.conf.template (tests.served).
Half the slow clients send a chunked ``POST /api/v1/players/`` and stall in its body, half stall
in their headers. Meanwhile 4 threads ask ``/health/live`` and ``/api/v1/leaderboard/`` in turn
for ``--seconds``, each request given ``--timeout`` seconds. Each row prints the requests
answered of those sent, the median and 99th percentile of the answered ones, and that
percentile as a ratio to the anchor's: gunicorn alone with no slow client, measured in the
same run.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tests.served import ask, free_port, gunicorn, manage, nginx, served_env

ASKERS = 4
PATHS = ("/health/live", "/api/v1/leaderboard/")


def slow_client(port: int, key: str, in_body: bool) -> socket.socket:
    client = socket.create_connection(("127.0.0.1", port))
    if in_body:
        head = (
            "POST /api/v1/players/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Api-Key {key}\r\nContent-Type: application/json\r\n"
            'Transfer-Encoding: chunked\r\n\r\n5\r\n{"use'
        )
    else:
        head = "GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
    client.sendall(head.encode())
    return client


@contextmanager
def slow_clients(port: int, key: str, count: int) -> Iterator[None]:
    clients = [slow_client(port, key, in_body=n % 2 == 0) for n in range(count)]
    try:
        time.sleep(0.5)
        yield
    finally:
        for client in clients:
            client.close()


def measure(port: int, seconds: float, timeout: float) -> tuple[int, list[float]]:
    """Requests sent, and the seconds each answered one took, by :data:`ASKERS` threads."""
    sent = [0] * ASKERS
    answered: list[float] = []
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def asker(number: int) -> None:
        turn = number
        while time.monotonic() < end:
            started = time.monotonic()
            sent[number] += 1
            try:
                status = ask(port, "GET", PATHS[turn % len(PATHS)], timeout=timeout).status
            except OSError:
                status = 0
            took = time.monotonic() - started
            if status == 200:
                with lock:
                    answered.append(took)
            turn += 1

    threads = [threading.Thread(target=asker, args=(n,)) for n in range(ASKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(sent), answered


def p99(seconds: list[float]) -> float:
    return statistics.quantiles(seconds, n=100, method="inclusive")[98]


def row(name: str, sent: int, answered: list[float], anchor: float) -> str:
    if not answered:
        return f"{name:<34} {0:>6} / {sent:<6} {'-':>9} {'-':>9} {'-':>8}"
    late = p99(answered)
    median = statistics.median(answered)
    return (
        f"{name:<34} {len(answered):>6} / {sent:<6} {median * 1000:>9.1f} {late * 1000:>9.1f}"
        f" {late / anchor:>8.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--timeout", type=float, default=2.0)
    options = parser.parse_args()

    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kort-slow-")))
        web = free_port()
        env = served_env(folder, web, GUNICORN_WORKERS="2", KORT_THROTTLE_ANON="none")
        key = manage(env, "create_service_key", "bench").strip().splitlines()[-1]
        stack.enter_context(gunicorn(env))
        proxy = stack.enter_context(nginx(web))
        for port in (web, proxy):  # each process loads its views on its first requests
            measure(port, 1.0, options.timeout)

        runs = [
            ("gunicorn alone", web, 0),
            ("nginx, then gunicorn", proxy, 0),
            (f"nginx, then gunicorn; {options.clients} slow", proxy, options.clients),
            (f"gunicorn alone; {options.clients} slow", web, options.clients),
        ]
        results = []
        for name, port, count in runs:
            with slow_clients(port, key, count):
                results.append((name, *measure(port, options.seconds, options.timeout)))

    anchor = p99(results[0][2])
    print(f"{options.seconds:g} s of requests from {ASKERS} threads, {options.timeout:g} s each")
    print(f"{'':<34} {'answered / sent':>15} {'p50 ms':>9} {'p99 ms':>9} {'p99 x':>8}")
    for name, sent, answered in results:
        print(row(name, sent, answered, anchor))


if __name__ == "__main__":
    main()

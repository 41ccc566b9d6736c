"""Load times of the players' pages served by gunicorn, debug off, for a player with 100,000
matches (API.md "Players' pages").

Run from the repository root, with PostgreSQL on 127.0.0.1:5432 (user ``postgres``, trust
authentication)::

    python -m bench.pages --gunicorn

It creates its own database (``kort_page_loads_<pid>``), migrates it and fills it as
``bench.scale`` fills its large ladder's player (``bench.scale.ladder_fill``: 10,000 players
on the board, one of them with 100,000 finalized ranked matches), collects the static files
(hashed and compressed, as the image does), starts gunicorn on a free local port with one
worker and times each page over HTTP: two requests to warm up, then five, whose median it
prints::

    page NAME MEDIAN_ms BYTES

then a line per static file checked (``static NAME ENCODING CACHE-CONTROL``). The database is
dropped and gunicorn stopped at the end, also after a failure. Exit status 1 if a page answers
other than 200.
"""

from __future__ import annotations

import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from bench import scale

DATABASE = f"kort_page_loads_{os.getpid()}"
URL = f"{scale.SERVER}/{DATABASE}"
SIZE = scale.Size("default", 10_000, 100_000)
WARM_UP = 2
TIMES = 5
ROOT = Path(__file__).resolve().parents[1]
os.environ["DATABASE_URL"] = URL  # in place of the one bench.scale names


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, bytes, dict, float]:
    request = urllib.request.Request(url, headers={"Host": scale.HOST, **(headers or {})})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            body = response.read()
            status, answer_headers = response.status, dict(response.headers)
    except urllib.error.HTTPError as error:
        body, status, answer_headers = error.read(), error.code, dict(error.headers)
    return status, body, answer_headers, (time.perf_counter() - start) * 1000


def pages(ladder: scale.Ladder) -> dict[str, str]:
    from matches.models import Seat

    deepest = (
        Seat.objects.filter(player_id=ladder.historian)
        .order_by("match_created_at", "match_id")
        .values_list("match_id", flat=True)
        .first()
    )
    star = f"/en/players/{ladder.historian}/"
    return {
        "leaderboard": "/en/",
        "leaderboard_page_100": "/en/?page=100",
        "leaderboard_search_prefix": "/en/?q=bench.12",
        "leaderboard_search_exact": f"/en/?q=bench.{ladder.median}",
        "season": "/en/seasons/1/?page=50",
        "player_100k": star,
        "player_100k_ru": f"/ru/players/{ladder.historian}/",
        "player_100k_won": f"{star}?result=won",
        "player_100k_ranked": f"{star}?mode=ranked",
        "match": f"/en/matches/{deepest}/",
    }


def main() -> int:
    import django
    import psycopg

    os.environ["DJANGO_DEBUG"] = "false"
    with psycopg.connect(f"{scale.SERVER}/postgres", autocommit=True) as server:
        server.execute(f'CREATE DATABASE "{DATABASE}"')
    server_process = None
    try:
        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        call_command("collectstatic", "--noinput", verbosity=0)
        started = time.perf_counter()
        ladder = scale.ladder_fill(SIZE)
        print(f"# filled {ladder.players} players, {ladder.history} matches of player "
              f"{ladder.historian} in {time.perf_counter() - started:.0f} s")  # fmt: skip
        paths = pages(ladder)
        port = free_port()
        env = {
            **os.environ,
            "GUNICORN_BIND": f"127.0.0.1:{port}",
            "GUNICORN_WORKERS": "1",
            "GUNICORN_ACCESSLOG": "",
            "DJANGO_CONN_MAX_AGE": "600",
        }
        server_process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "kort_site.wsgi"],
            cwd=ROOT,
            env=env,
        )
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                fetch(f"{base}/health/live")
                break
            except OSError:
                time.sleep(0.2)
        failed = False
        for name, path in paths.items():
            times = []
            for n in range(WARM_UP + TIMES):
                status, body, _, elapsed = fetch(base + path)
                if status != 200:
                    print(f"page {name} answered {status}: {path}")
                    failed = True
                    break
                if n >= WARM_UP:
                    times.append(elapsed)
            if times:
                print(f"page {name} {statistics.median(times):.1f} {len(body)}")
        _, body, _, _ = fetch(base + paths["player_100k"])
        for static in sorted(set(re.findall(r'/static/pages/[^"]+', body.decode()))):
            status, _, headers, _ = fetch(base + static, {"Accept-Encoding": "gzip"})
            encoding = headers.get("Content-Encoding", "identity")
            print(f"static {static} {status} {encoding} {headers.get('Cache-Control', '')}")
        return 1 if failed else 0
    finally:
        if server_process is not None:
            server_process.terminate()
            server_process.wait(timeout=30)
        from django.db import connections

        connections.close_all()
        with psycopg.connect(f"{scale.SERVER}/postgres", autocommit=True) as server:
            server.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')

"""The API's edges as gunicorn serves them with gunicorn.conf.py (API.md "Conventions": every
answer under /api/ is JSON): a chunked round report is read and stored; a request line or a
header field over gunicorn's default limits is a JSON 414 / 431 from the service, not
gunicorn's HTML page.

A real gunicorn on a free loopback port, on a SQLite file of its own (migrated here), with
in-process tasks."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def manage(env: dict, *arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


class Served:
    """The served service: requests through http.client, answers as (status, type, body)."""

    def __init__(self, port: int, key: str):
        self.port = port
        self.key = key

    def request(self, method: str, path: str, body=None, headers=None, chunked=False):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        given = {"Authorization": f"Api-Key {self.key}", "Content-Type": "application/json"}
        given.update(headers or {})
        encoded = None if body is None else json.dumps(body).encode()
        if chunked and encoded is not None:
            middle = len(encoded) // 2
            payload = iter([encoded[:middle], encoded[middle:]])
            connection.request(method, path, body=payload, headers=given, encode_chunked=True)
        else:
            connection.request(method, path, body=encoded, headers=given)
        answer = connection.getresponse()
        content = answer.read()
        connection.close()
        kind = answer.getheader("Content-Type", "")
        parsed = json.loads(content) if kind.startswith("application/json") else content
        return answer.status, kind, parsed


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gunicorn")
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DATABASE_", "CELERY_", "KORT_CACHE", "DJANGO_", "PYTEST"))
    }
    env.update(
        DATABASE_URL=f"sqlite:///{folder / 'served.sqlite3'}",
        DJANGO_SECRET_KEY="a-secret-key-for-the-served-test-only-0123456789",
        DJANGO_SECURE_COOKIES="false",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        GUNICORN_WORKERS="1",
        GUNICORN_ACCESSLOG="",
    )
    manage(env, "migrate", "--noinput", "-v", "0")
    key = manage(env, "create_service_key", "edges").strip().splitlines()[-1]
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "kort_site.wsgi"],
        cwd=ROOT,
        env=env,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail("gunicorn did not start")
        yield Served(port, key)
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_a_chunked_round_report_is_read_and_stored(served):
    seats = []
    for name in ("amir", "bita", "cyrus", "dara"):
        status, _, player = served.request("POST", "/api/v1/players/", {"username": name})
        assert status == 201, player
        seats.append(player["id"])
    status, _, match = served.request(
        "POST", "/api/v1/matches/", {"mode": "room", "seats": seats, "first_trump_seat": 0}
    )
    assert status == 201, match

    report = {"number": 1, "trump_seat": 0, "tricks": {"A": 7, "B": 3}}
    status, _, stored = served.request(
        "POST", f"/api/v1/matches/{match['id']}/rounds/", report, chunked=True
    )

    assert status == 201, stored
    assert (stored["number"], stored["outcome"], stored["winner"]) == (1, "win", "A")
    status, _, read = served.request("GET", f"/api/v1/matches/{match['id']}/")
    assert read["wins"] == {"A": 1, "B": 0}


def test_a_chunked_body_over_the_limit_is_a_json_413(served):
    body = {"pairs": {"pair_1": "x" * (1024 * 1024), "pair_2": "y"}}

    status, kind, answer = served.request("POST", "/api/v1/belote/protocols/", body, chunked=True)

    assert (status, kind) == (413, "application/json")
    assert "at most 1048576 bytes" in answer["detail"]


def test_a_5000_character_url_is_a_json_414(served):
    status, kind, answer = served.request("GET", "/api/v1/players/?search=" + "a" * 5000)

    assert (status, kind) == (414, "application/json")
    assert "at most 4094" in answer["detail"]


def test_a_9_kb_header_is_a_json_431(served):
    status, kind, answer = served.request(
        "GET", "/api/v1/leaderboard/", headers={"X-Padding": "p" * 9 * 1024}
    )

    assert (status, kind) == (431, "application/json")
    assert "X-Padding" in answer["detail"]

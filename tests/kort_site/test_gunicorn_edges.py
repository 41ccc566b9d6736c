"""The API's edges as gunicorn serves them with gunicorn.conf.py (API.md "Conventions": every
answer under /api/ is JSON): a chunked round report is read and stored; a request line or a
header field over gunicorn's default limits is a JSON 414 / 431 from the service, not
gunicorn's HTML page.

A real gunicorn on a free loopback port, on a SQLite file of its own (migrated here), with
in-process tasks."""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.served import ask, free_port, gunicorn, manage, served_env


@dataclass
class Served:
    """The served service: requests with its service key, answers as (status, type, body)."""

    port: int
    key: str
    folder: Path

    def request(self, method: str, path: str, body=None, headers=None, chunked=False):
        given = {"Authorization": f"Api-Key {self.key}", **(headers or {})}
        return ask(self.port, method, path, body, headers=given, chunked=chunked)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gunicorn")
    port = free_port()
    env = served_env(folder, port, GUNICORN_ACCESSLOG=str(folder / "access.log"))
    key = manage(env, "create_service_key", "edges").strip().splitlines()[-1]
    with gunicorn(env, log=folder / "error.log"):
        yield Served(port, key, folder)


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


def test_a_chunked_body_the_client_drops_midway_is_a_400_not_a_500(served):
    head = (
        "POST /api/v1/players/?dropped=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Api-Key {served.key}\r\nContent-Type: application/json\r\n"
        'Transfer-Encoding: chunked\r\n\r\n5\r\n{"use'
    )
    with socket.create_connection(("127.0.0.1", served.port)) as client:
        client.sendall(head.encode())

    access = served.folder / "access.log"
    for _ in range(100):
        logged = [line for line in access.read_text().splitlines() if "dropped=1" in line]
        if logged:
            break
        time.sleep(0.1)
    assert len(logged) == 1 and '" 400 ' in logged[0], logged
    assert "Error handling request" not in (served.folder / "error.log").read_text()

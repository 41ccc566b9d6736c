"""The development server on the embedded default (SQLite, no broker, as ``make run`` starts it)
runs the periodic tasks itself (kort_site.embedded_beat): a room match decided by a live Bavan
vote that the bots refuse at +2 s, and another whose silent vote runs past its deadline, are
both finalized with nobody running ``manage.py sweep`` (API.md "Nothing is lost"; KORT_RULES
§4). The server runs under the autoreloader, as ``make run`` runs it."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.worker import free_port

FINALIZED_WITHIN_SECONDS = 12


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


class Api:
    def __init__(self, base: str, key: str):
        self.base = base
        self.key = key

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(
            self.base + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Api-Key {self.key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=20) as response:
            return json.loads(response.read() or b"{}")

    def wait_until_it_answers(self, server: subprocess.Popen) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert server.poll() is None, "the development server exited"
            try:
                self.call("GET", "/api/v1/leaderboard/")
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        raise AssertionError("the development server did not answer within 30 s")

    def room_match_at_its_deciding_vote(self, tag: str, left: tuple[int, ...]) -> int:
        """A room match (7 wins) of four new players with the seats in ``left`` left, whose
        first round, an at-kort 0:7 for team B, opens B's live vote: its refusal ends it."""
        seats = [
            self.call("POST", "/api/v1/players/", {"username": f"{tag}{seat}"})["id"]
            for seat in range(4)
        ]
        body = {"mode": "room", "seats": seats, "first_trump_seat": 0}
        match = self.call("POST", "/api/v1/matches/", body)["id"]
        for seat in left:
            self.call("POST", f"/api/v1/matches/{match}/seats/{seat}/leave/")
        report = {"trump_seat": 0, "tricks": {"A": 0, "B": 7}, "bavan": "vote"}
        self.call("POST", f"/api/v1/matches/{match}/rounds/", report)
        return match

    def status(self, match: int) -> str:
        return self.call("GET", f"/api/v1/matches/{match}/")["status"]


def test_the_development_server_runs_the_periodic_tasks_on_the_embedded_default():
    with tempfile.TemporaryDirectory() as directory:
        env = {
            **{
                name: value
                for name, value in os.environ.items()
                if name not in ("DATABASE_URL", "CELERY_BROKER_URL", "KORT_CACHE_URL")
            },
            "DATABASE_URL": f"sqlite:///{Path(directory) / 'db.sqlite3'}",
            "DJANGO_DEBUG": "1",
            "KORT_THROTTLE_ANON": "none",
            "KORT_SWEEP_SECONDS": "1",
            "KORT_SWEEP_GRACE_SECONDS": "1",
            "KORT_BAVAN_VOTE_SECONDS": "3",
        }
        manage(env, "migrate", "--noinput", "-v", "0")
        key = manage(env, "create_service_key", "embedded-beat-test").strip().splitlines()[-1]
        port = free_port()
        api = Api(f"http://127.0.0.1:{port}", key)
        with open(Path(directory) / "server.log", "w+") as output:
            server = subprocess.Popen(
                [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}"],
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # the autoreloader and the serving child, stopped as one
            )
            try:
                api.wait_until_it_answers(server)
                by_bots = api.room_match_at_its_deciding_vote("bots", left=(1, 3))
                by_deadline = api.room_match_at_its_deciding_vote("silent", left=())
                opened = time.monotonic()
                statuses = {}
                while time.monotonic() < opened + FINALIZED_WITHIN_SECONDS:
                    statuses = {match: api.status(match) for match in (by_bots, by_deadline)}
                    if set(statuses.values()) == {"finalized"}:
                        break
                    time.sleep(0.25)
            finally:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=20)
            output.seek(0)
            log = output.read()

    assert statuses == {by_bots: "finalized", by_deadline: "finalized"}, log
    assert "Traceback" not in log, log

"""The operator's endpoints as production serves them (API.md "Operating the service"):
gunicorn with two workers and ``PROMETHEUS_MULTIPROC_DIR``, on the test database, its tasks
in-process. The figures of ``/metrics`` are the installation's whichever worker answers, and
with ``DJANGO_LOG_FORMAT=json`` every line gunicorn, Django and the tasks write is one JSON
object, with no key or token in any."""

from __future__ import annotations

import http.client
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from rest_framework_api_key.models import APIKey

from players.services import player_create
from tests.worker import database_url, free_port

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
MATCHES = 8
START_SECONDS = 30


@contextmanager
def gunicorn(tmp_path: Path, **overrides: str | None) -> Iterator[tuple[int, list[str]]]:
    """``gunicorn -c gunicorn.conf.py kort_site.wsgi`` with two workers on a free loopback
    port (``overrides`` set in its environment, or taken out of it where None); yields the port
    and, once the block ends and gunicorn has stopped, its output lines (the list is filled
    then)."""
    port = free_port()
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("CELERY_BROKER_URL", "KORT_CACHE_URL")  # tasks in-process
    }
    env.update(
        DATABASE_URL=database_url(),
        DJANGO_SECRET_KEY=secrets.token_urlsafe(48),
        DJANGO_LOG_FORMAT="json",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        GUNICORN_WORKERS="2",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"),
        KORT_THROTTLE_ANON="none",
        KORT_THROTTLE_SERVICE="none",
    )
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "counter_1.db").write_bytes(b"")  # an earlier run's, removed
    output = tmp_path / "gunicorn.log"
    lines: list[str] = []
    with output.open("w") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "kort_site.wsgi"],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_until_live(port, server)
            yield port, lines
        finally:
            server.terminate()
            server.wait(timeout=30)
    lines.extend(output.read_text().splitlines())


def _wait_until_live(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError("gunicorn exited")
        try:
            if call(port, "GET", "/health/live")[0] == 200:
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"gunicorn did not answer within {START_SECONDS} s")


def call(port: int, method: str, path: str, body=None, **headers: str) -> tuple[int, bytes]:
    """One request on a connection of its own (so that either worker may take it)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        payload = json.dumps(body) if body is not None else None
        if payload is not None:
            headers["Content-Type"] = "application/json"
        connection.request(method, path, payload, headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def scrape(port: int) -> dict[str, float]:
    status, text = call(port, "GET", "/metrics")
    assert status == 200
    return {
        f"{sample.name}{json.dumps(dict(sorted(sample.labels.items())))}": sample.value
        for family in text_string_to_metric_families(text.decode())
        for sample in family.samples
    }


FINALIZED = "kort_matches_finalized_total{}"
TASKS = 'kort_celery_tasks_total{"outcome": "success", "task": "ranking.finalize_match"}'
CREATED = (
    "django_http_responses_total_by_status_view_method_total"
    '{"method": "POST", "status": "201", "view": "match-list"}'
)


def test_two_workers_answer_with_the_installations_figures(tmp_path):
    _, key = APIKey.objects.create_key(name="table-server")
    seats = [player_create(username=f"player{n}", display_name=f"P{n}").pk for n in range(4)]
    kort = {"number": 1, "trump_seat": 0, "tricks": {"A": 7, "B": 0}, "bavan": "stop"}
    body = {"mode": "ranked", "seats": seats, "first_trump_seat": 0, "rounds": [kort]}
    bogus_token = secrets.token_hex(20)

    with gunicorn(tmp_path) as (port, lines):
        assert not (tmp_path / "metrics" / "counter_1.db").exists()
        with ThreadPoolExecutor(4) as clients:
            answers = list(
                clients.map(
                    lambda _: call(
                        port, "POST", "/api/v1/matches/", body, Authorization=f"Api-Key {key}"
                    ),
                    range(MATCHES),
                )
            )
        assert [status for status, _ in answers] == [201] * MATCHES, answers[0]
        assert (
            call(port, "GET", "/api/v1/players/me/stats/", Authorization=f"Token {bogus_token}")[0]
            == 401
        )
        scrapes = [scrape(port) for _ in range(6)]
        writers = {path.name.rsplit("_", 1)[1] for path in (tmp_path / "metrics").glob("*.db")}

    print(f"{len(writers)} processes wrote metrics")  # both workers, as a rule
    for samples in scrapes:
        assert (samples[FINALIZED], samples[TASKS], samples[CREATED]) == (MATCHES,) * 3

    records = [json.loads(line) for line in lines if line.strip()]
    assert all({"time", "level", "logger", "message"} <= set(record) for record in records)
    created = [
        r for r in records if r["logger"] == "gunicorn.access" and r["path"] == "/api/v1/matches/"
    ]
    assert len(created) == MATCHES
    assert {(r["method"], r["status"], r["credential"]) for r in created} == {
        ("POST", 201, "service key table-server")
    }
    assert all(0 < r["duration"] < 20 for r in created)
    refused = [r for r in records if r["logger"] == "django.request"]
    assert [(r["level"], r["message"]) for r in refused] == [
        ("WARNING", "Unauthorized: /api/v1/players/me/stats/")
    ]
    output = "\n".join(lines)
    assert key not in output and key.split(".")[1] not in output
    assert bogus_token not in output

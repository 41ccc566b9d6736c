"""A dead database (API.md "Operating the service"): gunicorn serving a private PostgreSQL
primary that the test stops and starts again. Meanwhile the API answers 503 with
``Retry-After`` and ``{"detail": ...}`` naming the database, the pages a 503 page, and
``/metrics`` the text format with ``kort_database_up 0`` and the process's metrics; once the
database is back the service is too, with no restart."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.kort_site.test_operations_gunicorn import ROOT, call, gunicorn
from tests.pgcluster import PgCluster

pytestmark = pytest.mark.cluster

BACK_SECONDS = 15
API = "/api/v1/seasons/"
PAGES = {
    "/en/": "Its database does not answer.",
    "/ru/": "Его база данных не отвечает.",  # noqa: RUF001
}


def samples(port: int) -> dict[str, float]:
    status, text = call(port, "GET", "/metrics")
    assert status == 200, text
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text.decode())
        for sample in family.samples
        if not sample.labels
    }


def answer(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_the_service_through_a_dead_database(tmp_path: Path):
    with PgCluster(bouncer=False) as cluster:
        env = {**os.environ, "DATABASE_URL": cluster.url()}
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        with gunicorn(
            # One process, counting alone: its own process metrics are in /metrics.
            tmp_path,
            DATABASE_URL=cluster.url(),
            GUNICORN_WORKERS="1",
            PROMETHEUS_MULTIPROC_DIR=None,
        ) as (port, _):
            assert answer(port, API)[0] == 200
            assert samples(port)["kort_database_up"] == 1

            cluster.primary_stop()
            status, headers, body = answer(port, API)
            assert (status, headers["Content-Type"], headers["Retry-After"]) == (
                503,
                "application/json",
                "5",
            )
            assert json.loads(body) == {"detail": "the database is unavailable; try again later"}
            for page, said in PAGES.items():
                status, headers, body = answer(port, page)
                assert (status, headers.get("Retry-After")) == (503, "5"), body[:3000]
                assert headers["Content-Type"].startswith("text/html")
                assert said in body.decode()
            down = samples(port)
            assert down["kort_database_up"] == 0
            assert down["process_cpu_seconds_total"] > 0
            assert "kort_matches_waiting" not in down

            cluster.primary_resume()
            deadline = time.monotonic() + BACK_SECONDS
            while answer(port, API)[0] != 200:
                assert time.monotonic() < deadline, "the service is not back with its database"
                time.sleep(0.2)
            assert samples(port)["kort_database_up"] == 1

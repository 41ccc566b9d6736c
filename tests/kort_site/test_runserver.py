"""The development server on PostgreSQL keeps no database connection between requests
(``kort_site/settings.py``, DJANGO_CONN_MAX_AGE): each client connection is a thread of its own,
and a connection kept for that thread's next request would never be closed. 200 requests, 20 at
a time, to ``manage.py runserver`` (as ``make run`` starts it, with the default
DJANGO_CONN_MAX_AGE of 60) on the test database: no 5xx, no "too many clients", and none of the
server's connections is left open after the burst."""

import os
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from tests.worker import database_url, free_port

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

REQUESTS = 200
AT_ONCE = 20
LEADERBOARD = "/api/v1/leaderboard/"


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def server_connections(application_name: str) -> int:
    """The connections of the development server (by their application name) open now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
            [application_name],
        )
        [(count,)] = cursor.fetchall()
    return count


def wait_until_it_answers(server: subprocess.Popen, url: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError("the development server exited")
        try:
            status_of(url)
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the development server did not answer within 30 s")


def test_the_development_server_keeps_no_connection_between_requests():
    port = free_port()
    application_name = f"kort-runserver-{secrets.token_hex(4)}"
    env = {
        **os.environ,
        "DATABASE_URL": f"{database_url()}?application_name={application_name}",
        "DJANGO_DEBUG": "1",
        "KORT_THROTTLE_ANON": "none",
    }
    env.pop("DJANGO_CONN_MAX_AGE", None)  # the default, 60
    url = f"http://127.0.0.1:{port}{LEADERBOARD}"
    with tempfile.TemporaryFile("w+") as output:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until_it_answers(server, url)
            with ThreadPoolExecutor(max_workers=AT_ONCE) as pool:
                statuses = list(pool.map(status_of, [url] * REQUESTS))
            # A request's connection is closed as its answer is sent: give the last ones a
            # moment to be gone from pg_stat_activity.
            deadline = time.monotonic() + 5
            while server_connections(application_name) and time.monotonic() < deadline:
                time.sleep(0.1)
            left_open = server_connections(application_name)
        finally:
            server.terminate()
            server.wait(timeout=20)
        output.seek(0)
        log = output.read()

    assert statuses == [200] * REQUESTS
    assert "too many clients" not in log
    assert left_open == 0

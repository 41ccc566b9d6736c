"""A real streaming replica that replays 300 ms late, and PgBouncer (API.md "Read replicas and
connection poolers"): the API behaves as on one database, through gunicorn, directly and
through a PgBouncer in transaction pooling mode.

The test makes its own cluster (tests/pgcluster.py: ``initdb``, ``pg_basebackup -R``,
``recovery_min_apply_delay``), migrates its primary and serves the service with gunicorn, tasks
in-process, ``DJANGO_CONN_MAX_AGE=0``. Every check sends its reads right after the writes they
must see, well within the replica's delay.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from itertools import count
from pathlib import Path

import pytest

from tests.pgcluster import PgCluster

pytestmark = pytest.mark.cluster

ROOT = Path(__file__).resolve().parents[1]
DELAY_MS = 300
WORKERS = 2
NAMES = count()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def service_env(cluster: PgCluster, *, pooled: bool) -> dict[str, str]:
    """The service's environment: the cluster's primary and replica, directly or through the
    PgBouncer, and nothing of the test run's own settings."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DATABASE_", "CELERY_", "KORT_", "DJANGO_", "PYTEST"))
    }
    if pooled:
        primary = cluster.url(cluster.bouncer_port)
        replica = cluster.url(cluster.replica_bouncer_port)
    else:
        primary, replica = cluster.url(), cluster.url(cluster.replica_port)
    env.update(
        DATABASE_URL=primary,
        DATABASE_REPLICA_URL=replica,
        DJANGO_CONN_MAX_AGE="0",
        DJANGO_SECRET_KEY="a-secret-key-for-the-replica-test-only-0123456789",
        DJANGO_SECURE_COOKIES="false",
        KORT_THROTTLE_ANON="none",
        KORT_THROTTLE_PLAYER="none",
        KORT_THROTTLE_SERVICE="none",
    )
    if pooled:
        env["DATABASE_TRANSACTION_POOLING"] = "true"
    return env


def manage(env: dict[str, str], *arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


class Served:
    """The service as a client sees it: ``request`` returns (status, JSON body)."""

    def __init__(self, cluster: PgCluster, env: dict[str, str], port: int, log: Path):
        self.cluster = cluster
        self.env = env
        self.port = port
        self.log = log
        self.key = self.new_key()
        self.statuses: list[int] = []

    def new_key(self) -> str:
        return manage(self.env, "create_service_key", "replica-test").strip().splitlines()[-1]

    def request(self, method: str, path: str, body=None, *, credential=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Content-Type": "application/json"}
        if credential != "":  # "": none, as a player's browser reads the public pages
            headers["Authorization"] = credential or f"Api-Key {self.key}"
        encoded = None if body is None else json.dumps(body).encode()
        connection.request(method, f"/api/v1/{path}", body=encoded, headers=headers)
        answer = connection.getresponse()
        content = answer.read()
        connection.close()
        self.statuses.append(answer.status)
        assert answer.getheader("Content-Type", "").startswith("application/json"), content
        return answer.status, json.loads(content)

    def players(self, number: int = 4) -> list[int]:
        ids = []
        for _ in range(number):
            status, body = self.request("POST", "players/", {"username": f"rep{next(NAMES)}"})
            assert status == 201, body
            ids.append(body["id"])
        return ids


@pytest.fixture(scope="module")
def cluster():
    with PgCluster(apply_delay_ms=DELAY_MS) as made:
        migrate_env = service_env(made, pooled=False)
        migrate_env.pop("DATABASE_REPLICA_URL")
        manage(migrate_env, "migrate", "--noinput", "-v", "0")
        made.replica_start()
        made.bouncer_start()
        made.replica_caught_up()
        yield made


@pytest.fixture(scope="module", params=["direct", "pgbouncer"])
def served(request, cluster, tmp_path_factory):
    env = service_env(cluster, pooled=request.param == "pgbouncer")
    port = free_port()
    env.update(GUNICORN_BIND=f"127.0.0.1:{port}", GUNICORN_WORKERS=str(WORKERS))
    env["GUNICORN_ACCESSLOG"] = ""
    log = tmp_path_factory.mktemp(f"served-{request.param}") / "gunicorn.log"
    with open(log, "w") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "kort_site.wsgi"],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        for _ in range(150):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail(f"gunicorn did not start:\n{log.read_text()}")
        service = Served(cluster, env, port, log)
        yield service
        assert all(status < 500 for status in service.statuses), log.read_text()[-5000:]
    finally:
        server.terminate()
        server.wait(timeout=20)


def whole_match(seats: list[int], **extra) -> dict:
    """A ranked match won at once by team A's Kort (KORT_RULES §2, §5)."""
    rounds = [{"number": 1, "trump_seat": 0, "tricks": {"A": 7, "B": 0}, "bavan": "stop"}]
    return {"mode": "ranked", "seats": seats, "first_trump_seat": 0, "rounds": rounds, **extra}


def test_a_create_resent_with_its_external_id_returns_the_match_at_once(served):
    body = {"mode": "ranked", "seats": served.players(), "first_trump_seat": 0}
    body["external_id"] = f"table/{next(NAMES)}"
    first = served.request("POST", "matches/", body)
    again = served.request("POST", "matches/", body)
    read = served.request("GET", f"matches/{first[1]['id']}/")

    assert (first[0], again[0], read[0]) == (201, 200, 200)
    assert again[1]["id"] == read[1]["id"] == first[1]["id"]


def test_a_round_resent_with_its_number_returns_the_round(served):
    seats = served.players()
    _, match = served.request("POST", "matches/", {"mode": "ranked", "seats": seats})
    report = {"number": 1, "trump_seat": 0, "tricks": {"A": 7, "B": 3}}
    first = served.request("POST", f"matches/{match['id']}/rounds/", report)
    again = served.request("POST", f"matches/{match['id']}/rounds/", report)
    read = served.request("GET", f"matches/{match['id']}/")

    assert (first[0], again[0], read[0]) == (201, 200, 200)
    assert [played["number"] for played in read[1]["rounds"]] == [1]
    assert read[1]["wins"] == {"A": 1, "B": 0}


def test_four_concurrent_creates_with_one_external_id_make_one_match(served):
    body = {"mode": "ranked", "seats": served.players(), "first_trump_seat": 0}
    body["external_id"] = f"table/{next(NAMES)}"
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: served.request("POST", "matches/", body), range(4)))

    statuses = sorted(status for status, _ in answers)
    assert statuses.count(201) == 1 and set(statuses) <= {200, 201, 409}, answers
    ids = {answer["id"] for status, answer in answers if status in (200, 201)}
    assert len(ids) == 1


def test_credentials_issued_a_moment_ago_are_accepted(served):
    key = served.new_key()
    status, _ = served.request(
        "POST", "players/", {"username": f"rep{next(NAMES)}"}, credential=f"Api-Key {key}"
    )
    assert status == 201

    (player,) = served.players(1)
    minted, body = served.request("POST", f"players/{player}/token/")
    assert minted == 201, body
    mine = served.request("GET", "players/me/stats/", credential=f"Token {body['token']}")
    assert mine[0] == 200, mine


def test_a_finalized_match_and_its_cups_are_read_back_at_once(served):
    seats = served.players()
    status, match = served.request("POST", "matches/", whole_match(seats))
    assert status == 201, match
    read = served.request("GET", f"matches/{match['id']}/")[1]
    winner = served.request("GET", f"players/{seats[0]}/")[1]

    assert read["status"] == "finalized"  # tasks run in-process: finalized on commit
    assert read["cups"][str(seats[0])] == winner["cups"] > 0


def test_season_end_and_the_seasons_read_right_after_it(served):
    seats = served.players()
    assert served.request("POST", "matches/", whole_match(seats))[0] == 201
    before = served.request("GET", "seasons/current/")[1]
    manage(served.env, "season_end")
    after = served.request("GET", "seasons/current/")[1]
    ended = served.request("GET", f"seasons/{before['number']}/")[1]
    standings = served.request("GET", f"seasons/{before['number']}/leaderboard/")[1]

    assert after["number"] == before["number"] + 1
    assert ended["status"] == "finalized"
    assert seats[0] in [row["player"]["id"] for row in standings["results"]]


QUIET_SECONDS = 60
"""How long the test waits for a round of reads during which the primary wrote nothing."""


def scans_during(cluster: PgCluster, reads) -> tuple[Counter[str], Counter[str]]:
    """The scans of each table that ``reads()`` made on the primary and on the replica, counted
    once the backends that served them have exited and reported them."""
    assert cluster.replica_port is not None
    ports = (cluster.primary_port, cluster.replica_port)
    cluster.backends_end()
    before = [Counter(cluster.tables_scanned(port)) for port in ports]
    reads()
    cluster.backends_end()
    after = [Counter(cluster.tables_scanned(port)) for port in ports]
    primary, replica = (after[side] - before[side] for side in (0, 1))
    return primary, replica


def test_once_writes_have_quieted_the_replica_serves_every_read(served):
    """Once the replica has replayed every write, a public read finds it caught up and reads
    nothing of the service's tables on the primary. The primary's own background work may write
    WAL meanwhile (then a request rightly reads on the primary): a round of reads counts only
    if the primary's WAL stood still through it."""
    cluster = served.cluster
    seats = served.players()
    match_ids = [served.request("POST", "matches/", whole_match(seats))[1]["id"] for _ in range(3)]
    paths = ["leaderboard/", "players/", "seasons/", *(f"matches/{id}/" for id in match_ids)]

    def reads():
        for path in paths * 10:
            assert served.request("GET", path, credential="")[0] == 200

    deadline = time.monotonic() + QUIET_SECONDS
    while True:
        position = cluster.replica_caught_up()
        primary, replica = scans_during(cluster, reads)
        if cluster.wal_position() == position:
            break
        assert time.monotonic() < deadline, f"the primary wrote WAL for {QUIET_SECONDS} s"

    assert +primary == Counter()
    read = {"players_player", "matches_match", "matches_seat", "seasons_season"}
    assert {table for table, scans in replica.items() if scans > 0} >= read, replica


def test_a_stopped_replica_leaves_the_primary_serving(served):
    cluster = served.cluster
    cluster.replica_stop()
    try:
        seats = served.players()
        status, match = served.request("POST", "matches/", whole_match(seats))
        reads = [
            served.request("GET", path)[0]
            for path in (f"matches/{match['id']}/", "leaderboard/", f"players/{seats[0]}/") * 3
        ]
    finally:
        cluster.replica_resume()
    assert status == 201
    assert reads == [200] * 9
    warned = served.log.read_text().count("The read replica does not answer")
    assert 1 <= warned <= WORKERS

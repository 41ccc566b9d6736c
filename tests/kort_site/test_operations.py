"""The operator's endpoints (API.md "Operating the service"): ``/health/live``, ``/health/ready``
with the database, the replica and the broker each up and down, and ``/metrics``: who may read
it, the requests and tasks it counts, and the ladder's figures it reads from the database."""

from __future__ import annotations

import ipaddress
import json
import logging
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from unittest import mock

import pytest
import time_machine
import yaml
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.db.models import F
from django.test import override_settings
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from conftest import IN_CI
from kort_site.operations import health
from kort_site.operations.logs import JsonFormatter
from kort_site.tasks import sweep_overdue_work
from matches.models import Match
from ranking.models import FINALIZED_SLOTS, FinalizedCount
from ranking.services import match_finalize, match_void
from ranking.status import pipeline_figures
from seasons.models import Season, SeasonStatus
from seasons.selectors import current_season
from tests.api_steps import ids_of, match_play, match_start, round_body, rounds_report
from tests.worker import RedisServer, broker_unreachable, free_port, publishing_to

NO_REDIS = shutil.which("redis-server") is None and not IN_CI
needs_redis = pytest.mark.skipif(NO_REDIS, reason="needs redis-server")


@pytest.fixture(autouse=True)
def _checks_disconnected():
    """The checks keep a connection of their own: closed after each test, so that the test
    database can be dropped."""
    yield
    health.close_connections()


@pytest.fixture
def anyone(client):
    """A Django client from the loopback, sending a credential that is no credential."""
    client.defaults["HTTP_AUTHORIZATION"] = "Token not-a-token"
    return client


@pytest.fixture
def redis_server():
    server = RedisServer()
    server.start()
    with publishing_to(server.url):
        yield server
    server.stop()


@contextmanager
def silent_server() -> Iterator[int]:
    """A port that takes connections and never answers a byte: a server that hangs."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def postgres_at(port: int) -> dict:
    """The settings of a PostgreSQL database on 127.0.0.1:``port``, otherwise the default's."""
    return {
        **connections.settings["default"],
        "ENGINE": "django.db.backends.postgresql",
        "HOST": "127.0.0.1",
        "PORT": port,
        "NAME": "kort",
        "USER": "postgres",
        "PASSWORD": "",
        "OPTIONS": {},
    }


@pytest.fixture
def databases(monkeypatch):
    """The settings' databases as the readiness checks read them, to change for one test."""
    configured = dict(settings.DATABASES)
    monkeypatch.setattr(settings, "DATABASES", configured)
    return configured


def ready(client) -> tuple[int, dict]:
    response = client.get("/health/ready")
    assert response["Content-Type"] == "application/json"
    return response.status_code, response.json()


# --- /health/live ----------------------------------------------------------------------------


def test_live_answers_ok_and_asks_nothing_else(anyone, databases):
    databases["default"] = postgres_at(free_port())  # a database down changes nothing here
    response = anyone.get("/health/live")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


# --- /health/ready ---------------------------------------------------------------------------


@needs_redis
@pytest.mark.django_db
def test_ready_with_the_database_and_the_broker_up(anyone, redis_server):
    assert ready(anyone) == (200, {"status": "ok", "checks": {"database": "ok", "broker": "ok"}})


@needs_redis
@pytest.mark.django_db
def test_ready_names_the_broker_when_it_is_down(anyone, redis_server):
    redis_server.stop()
    status, body = ready(anyone)
    assert status == 503
    assert body["status"] == "unavailable"
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["broker"].startswith("unavailable: ")
    assert "refused" in body["checks"]["broker"].lower()
    redis_server.start()
    assert ready(anyone)[0] == 200  # back as soon as the broker is


@pytest.mark.django_db
def test_ready_gives_up_on_a_broker_that_never_answers(anyone):
    with silent_server() as port, publishing_to(f"redis://127.0.0.1:{port}/0"):
        status, body = ready(anyone)
    assert status == 503
    assert body["checks"]["broker"].startswith("unavailable: ")
    assert "timeout" in body["checks"]["broker"].lower()


@pytest.mark.django_db
def test_ready_names_the_database_when_it_is_down(anyone, databases):
    databases["default"] = postgres_at(free_port())
    status, body = ready(anyone)
    assert status == 503
    assert body["status"] == "unavailable"
    assert body["checks"]["database"].startswith("unavailable: ")
    assert "refused" in body["checks"]["database"].lower()
    assert "replica" not in body["checks"]


@pytest.mark.django_db
def test_ready_gives_up_on_a_database_that_never_answers(anyone, databases):
    with silent_server() as port:
        databases["default"] = postgres_at(port)
        status, body = ready(anyone)
    assert status == 503
    assert "timeout" in body["checks"]["database"].lower()


@pytest.mark.postgres
@pytest.mark.django_db
def test_ready_cancels_a_query_with_no_answer_after_a_second(anyone, monkeypatch):
    monkeypatch.setattr(health, "PROBE_QUERY", "SELECT pg_sleep(30)")  # a server that stalls
    status, body = ready(anyone)
    assert status == 503
    assert body["checks"]["database"] == "unavailable: canceling statement due to user request"
    monkeypatch.undo()
    assert ready(anyone)[1]["checks"]["database"] == "ok"  # the connection serves again


@pytest.mark.django_db
def test_ready_asks_the_replica_when_there_is_one(anyone, databases):
    databases["replica"] = dict(connections.settings["default"])  # the primary, as a replica
    status, body = ready(anyone)
    assert (status, body["checks"]["database"], body["checks"]["replica"]) == (200, "ok", "ok")


@pytest.mark.django_db
def test_ready_names_the_replica_when_its_port_refuses(anyone, databases):
    databases["replica"] = postgres_at(free_port())
    status, body = ready(anyone)
    assert status == 503
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["replica"].startswith("unavailable: ")
    assert "refused" in body["checks"]["replica"].lower()


@pytest.mark.django_db
def test_ready_is_never_throttled(anyone):
    with override_settings(KORT_THROTTLE_ANON="1/min"):
        answers = [anyone.get(path).status_code for path in ("/health/ready", "/metrics") * 3]
    assert 429 not in answers
    assert answers[1::2] == [200] * 3


# --- /metrics --------------------------------------------------------------------------------


def scrape(client, **extra) -> dict[str, float]:
    """``/metrics`` parsed: each sample's value by its name and labels, as
    ``'name{label="value",...}'`` (labels sorted), or the bare name without labels."""
    response = client.get("/metrics", **extra)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples


LADDER = (
    "kort_matches_waiting",
    "kort_matches_oldest_waiting_seconds",
    "kort_votes_overdue",
    "kort_matches_finalized_total",
    "kort_queue_publish_failures_total",
    "kort_season_end_running",
)
PUBLISH_FAILURES = "kort_queue_publish_failures_total"


@pytest.mark.django_db
def test_metrics_answer_only_the_allowed_networks(anyone):
    refused = anyone.get("/metrics", REMOTE_ADDR="203.0.113.9")
    assert refused.status_code == 403
    assert refused.json() == {"detail": "203.0.113.9 may not read the metrics (KORT_METRICS_ALLOW)"}
    assert anyone.get("/metrics", REMOTE_ADDR="::1").status_code == 200
    with override_settings(KORT_METRICS_ALLOW=()):
        assert anyone.get("/metrics").status_code == 403
    with override_settings(KORT_METRICS_ALLOW=_networks("203.0.113.0/24")):
        assert anyone.get("/metrics", REMOTE_ADDR="203.0.113.9").status_code == 200
        assert anyone.get("/metrics").status_code == 403


def _networks(*names: str) -> tuple:
    return tuple(ipaddress.ip_network(name) for name in names)


@pytest.mark.django_db
def test_an_empty_ladder_reads_zero_everywhere(anyone):
    samples = scrape(anyone)
    read_from_the_database = [name for name in LADDER if name != PUBLISH_FAILURES]
    assert {name: samples[name] for name in read_from_the_database} == dict.fromkeys(
        read_from_the_database, 0.0
    )
    assert samples[PUBLISH_FAILURES] >= 0  # this process's count since it started


def test_the_ladder_figures_are_the_databases(anyone, service, cast):
    seats = ids_of(cast)
    finalized = [match_play(service, seats, [round_body(0, 7, 0, "stop")]) for _ in range(3)]
    before = scrape(anyone)
    with broker_unreachable():  # two completed matches whose finalization cannot be queued
        waiting = [match_play(service, seats, [round_body(0, 7, 0, "stop")]) for _ in range(2)]
    completed_at = Match.objects.get(pk=waiting[0]).completed_at
    assert completed_at is not None
    with time_machine.travel(completed_at + timedelta(seconds=42.5), tick=False):
        samples = scrape(anyone)
    assert samples["kort_matches_finalized_total"] == 3
    assert samples["kort_matches_waiting"] == 2
    assert samples["kort_matches_oldest_waiting_seconds"] == pytest.approx(42.5)
    assert samples["kort_queue_publish_failures_total"] - before[PUBLISH_FAILURES] == 2
    assert samples["kort_season_end_running"] == 0
    match_void(finalized[0], "a test")  # a voided match still was finalized once
    match_finalize(waiting[0])
    Season.objects.filter(pk=current_season().pk).update(status=SeasonStatus.FINALIZING)
    samples = scrape(anyone)
    assert samples["kort_matches_finalized_total"] == 4
    assert samples["kort_matches_waiting"] == 1
    assert samples["kort_season_end_running"] == 1


def test_an_open_vote_past_its_deadline_is_overdue(anyone, service, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    rounds_report(service, match_id, [round_body(0, 7, 0, "vote")])  # team A opens a vote
    assert pipeline_figures().votes_overdue == 0
    assert scrape(anyone)["kort_votes_overdue"] == 0
    later = timezone.now() + timedelta(seconds=settings.KORT_BAVAN_VOTE_SECONDS + 1)
    with time_machine.travel(later, tick=False):
        assert scrape(anyone)["kort_votes_overdue"] == 1


def test_requests_are_counted_by_view_method_and_status(anyone, api):
    counts = "django_http_responses_total_by_status_view_method_total"
    ok = f'{counts}{{method="GET",status="200",view="leaderboard"}}'
    missing = f'{counts}{{method="GET",status="404",view="player-detail"}}'
    latency = (
        "django_http_requests_latency_seconds_by_view_method_count"
        '{method="GET",status="200",view="leaderboard"}'
    )
    before = scrape(anyone)
    for _ in range(3):
        assert api.get("/api/v1/leaderboard/").status_code == 200
    assert api.get("/api/v1/players/999999/").status_code == 404
    after = scrape(anyone)
    assert after[ok] - before.get(ok, 0) == 3
    assert after[latency] - before.get(latency, 0) == 3
    assert after[missing] - before.get(missing, 0) == 1


def test_tasks_are_counted_by_task_and_outcome(anyone, service, cast):
    done = 'kort_celery_tasks_total{outcome="success",task="ranking.finalize_match"}'
    took = (
        'kort_celery_task_duration_seconds_count{outcome="success",task="ranking.finalize_match"}'
    )
    before = scrape(anyone)
    for _ in range(2):
        match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    after = scrape(anyone)
    assert after[done] - before.get(done, 0) == 2
    assert after[took] - before.get(took, 0) == 2


# --- logs ------------------------------------------------------------------------------------


def test_a_task_line_in_json_names_the_task_its_id_duration_and_outcome(service, cast):
    lines: list[str] = []

    class Lines(logging.Handler):
        def emit(self, record):
            lines.append(self.format(record))

    handler = Lines()
    handler.setFormatter(JsonFormatter())
    tasks = logging.getLogger("kort_site.tasks")
    previous = tasks.level
    tasks.addHandler(handler)
    tasks.setLevel(logging.INFO)
    try:
        match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    finally:
        tasks.removeHandler(handler)
        tasks.setLevel(previous)
    finalize = [json.loads(line) for line in lines if "ranking.finalize_match" in line]
    assert len(finalize) == 1
    line = finalize[0]
    assert set(line) >= {"time", "level", "logger", "message", "task", "task_id", "duration"}
    assert (line["level"], line["logger"], line["task"], line["outcome"]) == (
        "INFO",
        "kort_site.tasks",
        "ranking.finalize_match",
        "success",
    )
    assert line["duration"] >= 0 and len(line["task_id"]) == 36


# --- the trailing slash ----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/health/live", "/health/ready", "/metrics"])
def test_each_operators_endpoint_answers_the_same_with_its_trailing_slash(anyone, path):
    plain, slashed = anyone.get(path), anyone.get(f"{path}/")

    assert slashed.status_code == plain.status_code == 200, slashed.content
    assert slashed["Content-Type"] == plain["Content-Type"]
    assert "Location" not in slashed


# --- the schema ------------------------------------------------------------------------------


def test_the_schema_says_the_operators_endpoints_take_no_credential_and_no_rate(tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(target))
    paths = yaml.safe_load(target.read_text())["paths"]
    answers = {
        path: (paths[path]["get"].get("security"), sorted(paths[path]["get"]["responses"]))
        for path in ("/health/live", "/health/ready", "/metrics")
    }
    assert answers == {
        "/health/live": (None, ["200"]),
        "/health/ready": (None, ["200", "503"]),
        "/metrics": (None, ["200", "403"]),
    }
    assert list(paths["/metrics"]["get"]["responses"]["200"]["content"]) == ["text/plain"]


def test_the_finalized_matches_are_read_from_their_stored_count(
    service, cast, django_assert_num_queries
):
    played = [match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")]) for _ in "ab"]
    # Two matches one id apart add to two slots: their finalizations do not wait for each other.
    assert sorted(
        FinalizedCount.objects.filter(matches__gt=0).values_list("slot", "matches")
    ) == sorted((match_id % FINALIZED_SLOTS, 1) for match_id in played)
    FinalizedCount.objects.filter(slot=played[0] % FINALIZED_SLOTS).update(
        matches=F("matches") + 40
    )
    with django_assert_num_queries(4):  # waiting, votes, seasons, the stored count
        assert pipeline_figures().matches_finalized == 42  # the slots' sum, not a recount


def test_a_task_stopped_at_its_soft_time_limit_is_counted(anyone, db):
    stopped = 'kort_celery_soft_time_limits_total{task="kort_site.sweep"}'
    before = scrape(anyone)
    with mock.patch("kort_site.tasks.sweep", side_effect=SoftTimeLimitExceeded()):
        assert sweep_overdue_work.apply(throw=False).failed()  # as a worker runs it
    assert scrape(anyone)[stopped] - before.get(stopped, 0) == 1

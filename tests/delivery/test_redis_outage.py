"""Redis is not a single point of failure (API.md "Conventions"): with the broker's Redis, which
also counts the request rates (``KORT_CACHE_URL``'s default), down, reads, writes (a round
report that stores a round) and the stateless Belote scorer answer as with Redis up, in JSON;
the rates count in process memory with one warning for the outage, and in Redis again once it is
back. The Redis is the test's own, stopped and started by the test."""

import logging
from contextlib import contextmanager

import pytest
import redis

from kort_site import throttles
from kort_site.celery import app as celery_app
from tests.api_steps import MATCHES, ids_of, match_start, round_body
from tests.belote.examples import EXAMPLE_1, EXAMPLE_1_SCORE
from tests.worker import publishing_to

pytestmark = pytest.mark.redis

LEADERBOARD = "/api/v1/leaderboard/"
SCORE = "/api/v1/belote/score/"


@pytest.fixture
def redis_counts(private_redis, settings, monkeypatch):
    """The rates counted in the private Redis, as by default in the broker's, by a fresh
    :class:`throttles.FallbackCounts` that tries Redis again at every request; tasks are
    published to that Redis too (not run in-process)."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": private_redis.url,
        }
    }
    monkeypatch.setattr(throttles, "RETRY_SECONDS", 0.0)
    monkeypatch.setattr(throttles._RateThrottle, "cache", throttles.FallbackCounts())
    with publishing_to(private_redis.url), tasks_published():
        yield private_redis


@contextmanager
def tasks_published():
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = previous


def outage_warnings(caplog) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == throttles.__name__ and record.levelno == logging.WARNING
    ]


def assert_json(response, status: int) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    return response.json()


def rate_keys(server) -> list:
    return redis.Redis.from_url(server.url).keys("*throttle_*")


def test_with_redis_down_reads_writes_and_the_scorer_answer_as_with_it_up(
    redis_counts, settings, service, api, cast, caplog
):
    settings.KORT_THROTTLE_ANON = "1000/min"
    settings.KORT_THROTTLE_SERVICE = "1000/min"
    seats = ids_of(cast)
    match_id = match_start(service, seats)
    redis_counts.stop()

    with caplog.at_level(logging.WARNING):
        started = assert_json(service.post(MATCHES, {"seats": seats, "mode": "ranked"}), 201)
        final = service.post(
            f"{MATCHES}{match_id}/rounds/", {"number": 1, **round_body(0, 7, 0, "stop")}
        )
        match = assert_json(api.get(f"{MATCHES}{match_id}/"), 200)
        board = assert_json(api.get(LEADERBOARD), 200)
        score = assert_json(api.post(SCORE, EXAMPLE_1), 200)
        missing = assert_json(api.get(f"{MATCHES}999999/"), 404)

    assert started["status"] == "in_progress"
    # The round is stored and answered 2xx although its finalization could not be queued.
    assert assert_json(final, 201)["match"]["status"] == "completed"
    assert match["status"] == "completed"
    assert "results" in board
    assert score == EXAMPLE_1_SCORE
    assert "detail" in missing
    [warning] = outage_warnings(caplog)
    assert "process memory" in warning


def test_rates_count_in_memory_while_redis_is_down_and_in_redis_once_it_is_back(
    redis_counts, settings, api, caplog
):
    settings.KORT_THROTTLE_ANON = "3/min"
    with caplog.at_level(logging.INFO):
        redis_counts.stop()
        down = [api.get(LEADERBOARD).status_code for _ in range(4)]
        redis_counts.start()  # back, and empty
        back = [api.get(LEADERBOARD).status_code for _ in range(4)]
        assert rate_keys(redis_counts)  # counted in Redis again
        redis_counts.stop()  # a second outage warns again
        api.get(LEADERBOARD)

    assert down == [200, 200, 200, 429]
    assert back == [200, 200, 200, 429]
    assert len(outage_warnings(caplog)) == 2
    assert any("is back" in record.getMessage() for record in caplog.records)

"""On PostgreSQL with a real Celery worker and Celery beat (KORT_RULES §10; API.md "Seasons"):
beat finds a season whose end has come and the worker finalizes the ladder, with no command
run; the next season's matches are then finalized by the worker as usual."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.api_steps import match_play, match_read, player_read, round_body
from tests.ranking.season_steps import SEASON_ONE, SEASONS, board, season_end, season_one_play
from tests.worker import celery_worker

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def poll(read, done, seconds: float = 45):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = read()
        if done(value):
            return value
        time.sleep(0.2)
    raise AssertionError(f"not done in {seconds} s: {value}")


def test_beat_ends_a_season_scheduled_a_few_seconds_ahead(service, api):
    with celery_worker(beat=True, KORT_SEASON_CHECK_SECONDS="1"):
        ids = season_one_play(service)
        last = poll(
            lambda: match_read(api, max(match["id"] for match in all_matches(api))),
            lambda match: match["status"] == "finalized",
        )
        assert last["season"] == 1
        poll(lambda: board(api), lambda rows: len(rows) == len(SEASON_ONE))

        end = (timezone.now() + timedelta(seconds=3)).isoformat()
        assert "now ends at" in season_end("--at", end)
        assert api.get(f"{SEASONS}current/").data["status"] == "current"

        poll(lambda: api.get(f"{SEASONS}1/").data, lambda s: s["status"] == "finalized")

        standings = board(api, f"{SEASONS}1/leaderboard/")
        assert [row["player"]["username"] for row in standings] == list(SEASON_ONE)
        assert player_read(api, ids["elham"])["cups"] == 11  # 22 // 2
        assert api.get(f"{SEASONS}current/").data["number"] == 2
        seats = [ids[name] for name in ("amir", "bita", "cyrus", "dara")]
        match_id = match_play(service, seats, [round_body(0, 7, 0, "stop")])
        match = poll(lambda: match_read(api, match_id), lambda m: m["status"] == "finalized")

    assert match["season"] == 2
    assert [row["player"]["username"] for row in board(api)] == ["amir", "cyrus", "bita", "dara"]


def all_matches(api) -> list[dict]:
    return api.get("/api/v1/matches/").data["results"]

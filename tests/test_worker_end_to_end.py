"""End to end on PostgreSQL with a real Celery worker over the broker: a match reported through
the HTTP API is finalized by the worker, and its cups are read back (KORT_RULES §7)."""

import time

import pytest

from tests.worker import celery_worker

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _poll_until_finalized(api, match_id: int, seconds: float = 30) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        body = api.get(f"/api/v1/matches/{match_id}/").data
        if body["status"] == "finalized":
            return body
        time.sleep(0.1)
    raise AssertionError(f"match {match_id} was not finalized in {seconds} s: {body}")


def test_worker_finalizes_a_kort_match_reported_over_http(api, service, cast):
    ids = [p.id for p in cast]
    with celery_worker():
        created = service.post(
            "/api/v1/matches/", {"mode": "ranked", "seats": ids, "first_trump_seat": 1}
        )
        assert created.status_code == 201, created.data
        match_id = created.data["id"]
        # Seat 1 (team B) calls trump; team B makes a Kort and stops: +5 wins ends the match.
        reported = service.post(
            f"/api/v1/matches/{match_id}/rounds/",
            {"number": 1, "trump_seat": 1, "tricks": {"A": 0, "B": 7}, "bavan": "stop"},
        )
        assert reported.status_code == 201, reported.data
        assert reported.data["match"]["status"] == "completed"
        match = _poll_until_finalized(api, match_id)

    # Team B: +5 for the Kort, +2 for the match, +3 for a clean sweep; team A: -5 (§7 table).
    assert match["cups"] == {str(ids[0]): -5, str(ids[1]): 10, str(ids[2]): -5, str(ids[3]): 10}
    assert api.get(f"/api/v1/players/{ids[1]}/").data["cups"] == 10
    assert api.get("/api/v1/leaderboard/").data["results"][0]["player"]["id"] in (ids[1], ids[3])

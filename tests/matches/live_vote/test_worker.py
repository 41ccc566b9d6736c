"""A live vote resolved at its deadline by a real Celery worker over the broker, on PostgreSQL
(KORT_RULES §4): the vote is shortened to 2 s in the worker and in the test process."""

import time

import pytest

from tests.worker import celery_worker

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _poll_until_resolved(table, seconds: float = 30) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = table.state()
        if state["status"] != "open":
            return state
        time.sleep(0.1)
    raise AssertionError(f"the vote was not resolved in {seconds} s: {state}")


def test_the_worker_resolves_silence_at_the_deadline(seat_table, settings):
    settings.KORT_BAVAN_VOTE_SECONDS = 2
    with celery_worker(KORT_BAVAN_VOTE_SECONDS="2"):
        # Match 1: seat 0 votes bavan, its partner stays silent: agreement (§4).
        agreed = seat_table(mode="room")
        agreed.open_vote(trump_seat=0)
        assert agreed.vote(0, "bavan").status_code == 201
        # Match 2: both voters stay silent: refused, the Kort counts.
        silent = seat_table(mode="room")
        silent.open_vote(trump_seat=0)

        went = _poll_until_resolved(agreed)
        refused = _poll_until_resolved(silent)

    assert went["status"] == "go"
    assert went["resolved_at"] == went["deadline"]
    assert agreed.match()["rounds"][0]["status"] == "bavan"
    assert refused["status"] == "refused"
    played = silent.match()["rounds"][0]
    assert (played["status"], played["outcome"], played["winner"]) == ("finished", "kort", "A")
    assert silent.match()["wins"] == {"A": 5, "B": 0}

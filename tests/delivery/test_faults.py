"""Nothing is lost when the queue fails (API.md "Conventions", "Nothing is lost"), on
PostgreSQL with real workers and a Redis broker of the test's own, which the tests kill and
bring back. In each case the work is done within 30 s of recovery, by the sweeper that Celery
beat runs in the new worker, and the cups are applied exactly once: one ledger row per player,
with the values of KORT_RULES §7.

The workers sweep every second and count work as lost after one second
(``KORT_SWEEP_SECONDS``, ``KORT_SWEEP_GRACE_SECONDS``), so the tests wait seconds, not minutes.
"""

import time
from collections.abc import Callable
from contextlib import contextmanager

import psycopg
import pytest
from django.db import connection

from matches.live_vote.models import BavanVote
from matches.models import Match
from players.models import Player
from ranking.models import CupChange
from tests.api_steps import MATCHES, ids_of, match_start, round_body, rounds_report
from tests.worker import celery_worker, database_url, kill_hard, publishing_to

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

RECOVERY_SECONDS = 30
FAST_SWEEP = {"KORT_SWEEP_SECONDS": "1", "KORT_SWEEP_GRACE_SECONDS": "1"}


def seconds_until(done: Callable[[], bool], what: str, since: float | None = None) -> float:
    """Wait until ``done()``, at most 30 s after ``since`` (a ``time.monotonic()``; default:
    now); return the seconds from ``since`` to done."""
    since = time.monotonic() if since is None else since
    while not done():
        if time.monotonic() - since > RECOVERY_SECONDS:
            raise AssertionError(f"{what}: not within {RECOVERY_SECONDS} s")
        time.sleep(0.1)
    return time.monotonic() - since


def finalized(match_id: int) -> Callable[[], bool]:
    return lambda: Match.objects.get(pk=match_id).status == "finalized"


def assert_cups_applied_once(seats, team_a: int, team_b: int, match_id: int) -> None:
    """One ledger row per player with its team's cups, and the players' totals to match."""
    expected = {pid: team_a if seat % 2 == 0 else team_b for seat, pid in enumerate(seats)}
    ledger = CupChange.objects.filter(match_id=match_id).values_list("player_id", "delta")
    assert sorted(ledger) == sorted(expected.items())
    assert dict(Player.objects.filter(pk__in=seats).values_list("pk", "cups")) == expected


def report(service, match_id: int, number: int, body: dict):
    return service.post(f"{MATCHES}{match_id}/rounds/", {"number": number, **body})


def test_a_final_round_while_the_broker_is_down_is_finalized_once_it_is_back(
    private_redis, service, cast
):
    seats = ids_of(cast)
    with publishing_to(private_redis.url):
        match_id = match_start(service, seats)
        rounds_report(service, match_id, [round_body(0, 7, 3)])
        private_redis.stop()
        final = report(service, match_id, 2, round_body(0, 7, 0, "stop"))
        assert final.status_code == 201, final.content
        assert final["Content-Type"] == "application/json"
        assert final.json()["match"]["status"] == "completed"
        private_redis.start()
        back = time.monotonic()

    with celery_worker(broker_url=private_redis.url, beat=True, **FAST_SWEEP):
        took = seconds_until(finalized(match_id), "finalized after the broker came back", back)

    print(f"finalized {took:.1f} s after the broker came back (a worker started meanwhile)")
    # Team A: +1 (7:3) +5 (Kort) +2 (match) +3 (B ended on 0 wins) = +11; team B -6 (§7).
    assert_cups_applied_once(seats, +11, -6, match_id)


@contextmanager
def row_locked(player_id: int):
    """Hold the player's row locked (``SELECT ... FOR UPDATE``) from a connection of the
    test's own until the block ends; yields that connection."""
    with psycopg.connect(database_url()) as holder:
        holder.execute(
            f"SELECT id FROM {Player._meta.db_table} WHERE id = %s FOR UPDATE", [player_id]
        )
        yield holder
        holder.rollback()


def someone_waits_for(holder: psycopg.Connection) -> bool:
    """Whether another session waits for a lock ``holder`` holds. Asked on the test's own
    connection: inside the holder's transaction, ``pg_stat_activity`` would stay as it was
    when first read."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))",
            [holder.info.backend_pid],
        )
        [(waiting,)] = cursor.fetchall()
    return waiting > 0


def test_a_worker_killed_inside_finalization_leaves_it_to_the_next_worker(
    private_redis, service, cast
):
    seats = ids_of(cast)
    match_id = match_start(service, seats)
    with (
        celery_worker(broker_url=private_redis.url) as first,
        row_locked(seats[0]) as holder,
    ):
        final = report(service, match_id, 1, round_body(0, 7, 0, "stop"))
        assert final.status_code == 201, final.content
        # Finalization claimed the match and waits for the player's row, inside its
        # transaction: the moment to kill its worker.
        seconds_until(lambda: someone_waits_for(holder), "the finalization is under way")
        kill_hard(first)
    # The lock is released; the dead worker's transaction can only roll back.
    assert Match.objects.get(pk=match_id).status == "completed"

    back = time.monotonic()
    with celery_worker(broker_url=private_redis.url, beat=True, **FAST_SWEEP):
        took = seconds_until(finalized(match_id), "finalized by the next worker", back)

    print(f"finalized {took:.1f} s after the next worker was started")
    assert_cups_applied_once(seats, +10, -5, match_id)  # A: +5 +2 +3; B: -5 (§7)


def test_a_vote_whose_deadline_task_was_lost_is_resolved_without_a_reader(
    private_redis, service, cast, settings
):
    settings.KORT_BAVAN_VOTE_SECONDS = 2
    seats = ids_of(cast)
    with publishing_to(private_redis.url):
        match_id = match_start(service, seats)
        private_redis.stop()
        opened = report(service, match_id, 1, round_body(0, 7, 0, "vote"))
        assert opened.status_code == 201, opened.content
        assert opened.json()["status"] == "voting"
        private_redis.start()
        back = time.monotonic()

    # Nobody reads the vote (a read would settle it): the database is watched instead.
    with celery_worker(
        broker_url=private_redis.url, beat=True, KORT_BAVAN_VOTE_SECONDS="2", **FAST_SWEEP
    ):
        took = seconds_until(
            lambda: BavanVote.objects.get().status != "open", "resolved by the sweeper", back
        )
        seconds_until(finalized(match_id), "the match its refusal ended, finalized", back)

    print(f"vote resolved {took:.1f} s after the broker came back (a worker started meanwhile)")
    vote = BavanVote.objects.get()
    # Both voters silent: refused at the deadline, the Kort counts (KORT_RULES §4).
    assert (vote.status, vote.resolved_at) == ("refused", vote.deadline)
    assert_cups_applied_once(seats, +10, -5, match_id)

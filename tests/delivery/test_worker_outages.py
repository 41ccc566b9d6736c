"""The worker survives broker outages (API.md "Conventions", Redis is not a single point of
failure): docs/production.md's worker (with Celery beat) on a Redis of the test's own, with
the default settings, while a game server keeps creating and completing matches through the
API. Redis is killed three times for 12 s and started again; the test restarts no other process,
and the worker runs throughout. Every answer is JSON and none is a 5xx, the rates count in process
memory meanwhile, each outage's matches are finalized within 30 s of Redis being back (by the
sweeper: their tasks could not be queued), and every match exactly once.
"""

import time
from collections import Counter

import pytest
from django.db.models import Count

from matches.models import Match
from ranking.models import CupChange
from tests.api_steps import MATCHES, ids_of, round_body
from tests.worker import readme_worker, worker_output

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

OUTAGES = 3
OUTAGE_SECONDS = 12
UP_SECONDS = 2
"""Matches played with Redis up before the first outage; after each, matches go on being played
until those of the outage are finalized."""
RECOVERY_SECONDS = 30


class GameServer:
    """Plays whole matches through the API, one after another (a Kort in the first round ends
    a ranked match, KORT_RULES §5), and keeps count of the answers."""

    def __init__(self, service, seats):
        self.service = service
        self.seats = seats
        self.statuses: Counter[int] = Counter()
        self.not_json = 0

    def _answer(self, response):
        self.statuses[response.status_code] += 1
        if response["Content-Type"] != "application/json":
            self.not_json += 1
        return response

    def play(self) -> int | None:
        """One whole match; its id, or None if it could not be completed."""
        created = self._answer(self.service.post(MATCHES, {"mode": "ranked", "seats": self.seats}))
        if created.status_code != 201:
            return None
        match_id = created.json()["id"]
        body = {"number": 1, **round_body(0, 7, 0, "stop")}
        final = self._answer(self.service.post(f"{MATCHES}{match_id}/rounds/", body))
        return match_id if final.status_code == 201 else None

    def play_for(self, seconds: float) -> list[int]:
        """Matches, one after another, for ``seconds``; the ids of those completed."""
        until = time.monotonic() + seconds
        played = []
        while time.monotonic() < until:
            if (match_id := self.play()) is not None:
                played.append(match_id)
            time.sleep(0.1)
        return played

    def play_until(self, done, what: str) -> float:
        """Matches until ``done()``, at most 30 s; the seconds it took."""
        return within_recovery(done, what, lambda: self.play_for(0.5))


def within_recovery(done, what: str, meanwhile) -> float:
    """Call ``meanwhile()`` until ``done()``, at most 30 s; the seconds it took."""
    start = time.monotonic()
    while not done():
        if time.monotonic() - start > RECOVERY_SECONDS:
            raise AssertionError(f"{what}: not within {RECOVERY_SECONDS} s")
        meanwhile()
    return time.monotonic() - start


def all_finalized(match_ids) -> bool:
    return not Match.objects.filter(pk__in=match_ids).exclude(status="finalized").exists()


def test_three_broker_outages_under_a_stream_of_matches(private_redis, settings, service, cast):
    # The default settings: the rates are counted in the broker's Redis (KORT_CACHE_URL's
    # default), here the test's own, at rates no test request reaches.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": private_redis.url,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    settings.KORT_THROTTLE_SERVICE = "100000/min"
    settings.KORT_THROTTLE_ANON = "100000/min"
    server = GameServer(service, ids_of(cast))
    recovery = []
    with readme_worker(broker_url=private_redis.url, beat=True) as worker:
        server.play_for(UP_SECONDS)
        for outage in range(OUTAGES):
            private_redis.stop()
            during = server.play_for(OUTAGE_SECONDS)
            private_redis.start()
            took = server.play_until(
                lambda ids=during: all_finalized(ids), f"outage {outage + 1}'s matches finalized"
            )
            recovery.append(took)
            assert during, "no match was completed during the outage"
        # The matches played with Redis up after the last outage (no more are played).
        within_recovery(
            lambda: all_finalized(Match.objects.values("pk")),
            "every match finalized",
            lambda: time.sleep(0.2),
        )
        output = worker_output(worker)

    losses = output.count("Connection to broker lost")
    server_errors = sum(n for status, n in server.statuses.items() if status >= 500)
    print(
        f"answers {dict(server.statuses)} ({server_errors} 5xx); finalized "
        + ", ".join(f"{took:.1f} s" for took in recovery)
        + f" after outages 1-{OUTAGES} ended; the worker lost the broker {losses} times"
    )
    matches = Match.objects.count()
    assert set(server.statuses) == {201}
    assert server.statuses[201] == 2 * matches
    assert server.not_json == 0
    assert max(recovery) <= RECOVERY_SECONDS
    # Exactly once: one ledger row per match and player, for every match.
    per_pair = CupChange.objects.values("match_id", "player_id").annotate(rows=Count("id"))
    assert {row["rows"] for row in per_pair} == {1}
    assert CupChange.objects.values("match_id").distinct().count() == matches
    assert CupChange.objects.count() == 4 * matches
    assert "Unrecoverable error" not in output

"""Read replicas (docs/scaling.md): with ``DATABASE_REPLICA_URL`` a request's reads go to the
replica once it has replayed the primary's writes up to the request's arrival; every write,
every read inside a transaction or ``primary_reads()``, every read after the request wrote and
every read outside a request go to the primary, and so does every migration. The real
streaming replica is in tests/test_replica_end_to_end.py."""

import json
import logging
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.db import connections, transaction
from django.http import HttpResponse

from bulk.reads import RequestReads, primary_reads, request_reads, request_started
from kort_site import db_router
from kort_site.db_router import ReplicaReadsMiddleware, ReplicaRouter
from players.models import Player
from tests.worker import free_port

ROUTER = ReplicaRouter()


def caught_up() -> RequestReads:
    """A request whose replica has replayed up to its arrival."""
    return RequestReads(replica_ready=True)


def test_a_read_outside_a_request_goes_to_the_primary():
    assert ROUTER.db_for_read(Player) == "default"


def test_a_request_reads_from_a_caught_up_replica_until_it_writes():
    with request_started(caught_up()) as state:
        assert ROUTER.db_for_read(Player) == "replica"
        assert ROUTER.db_for_write(Player) == "default"
        assert ROUTER.db_for_read(Player) == "default"
    assert (state.replica_reads, state.primary_reads) == (1, 1)


def test_primary_reads_and_a_primary_not_read_keep_the_reads_on_the_primary():
    with request_started(caught_up()), primary_reads():
        assert ROUTER.db_for_read(Player) == "default"
    with request_started(RequestReads(primary_only=True, replica_ready=True)):
        assert ROUTER.db_for_read(Player) == "default"
    with request_started(RequestReads(replica_ready=False)):
        assert ROUTER.db_for_read(Player) == "default"


@pytest.mark.django_db(transaction=True)
def test_reads_inside_a_transaction_and_writes_stay_on_the_primary():
    with request_started(caught_up()), transaction.atomic():
        assert ROUTER.db_for_read(Player) == "default"
    assert ROUTER.db_for_write(Player) == "default"
    assert ROUTER.allow_migrate("default", "players")
    assert not ROUTER.allow_migrate("replica", "players")


@pytest.fixture
def unreachable_replica(monkeypatch, django_db_blocker):
    """A replica alias on a port nobody listens on (connecting is let through), and the
    router's outage state afresh."""
    monkeypatch.setattr(db_router._Outage, "down", False)
    monkeypatch.setattr(db_router._Outage, "retry_at", 0.0)
    monkeypatch.setattr(db_router, "primary_position", lambda: "0/10")
    monkeypatch.setitem(
        connections.settings,
        "replica",
        {
            **connections.settings["default"],
            "ENGINE": "django.db.backends.postgresql",
            "HOST": "127.0.0.1",
            "PORT": free_port(),
            "NAME": "kort",
            "USER": "postgres",
            "PASSWORD": "",
            "OPTIONS": {"connect_timeout": 2},
        },
    )
    with django_db_blocker.unblock():
        yield
    connections["replica"].close()
    del connections["replica"]


def test_an_unreachable_replica_sends_reads_to_the_primary_with_one_warning(
    unreachable_replica, caplog, monkeypatch
):
    caplog.set_level(logging.WARNING, logger="kort_site.db_router")
    for _ in range(2):
        with request_started(RequestReads()) as state:
            assert ROUTER.db_for_read(Player) == "default"
            assert ROUTER.db_for_read(Player) == "default"
        assert state.replica_ready is False
        monkeypatch.setattr(db_router._Outage, "retry_at", 0.0)  # asked again: still down
    warnings = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "replica" in warnings[0].getMessage()


def test_the_middleware_gives_each_request_its_state_and_the_admin_the_primary(monkeypatch, rf):
    monkeypatch.setattr(settings, "DATABASES", {**settings.DATABASES, "replica": {}})
    seen = []

    def view(request):
        seen.append(request_reads())
        return HttpResponse()

    middleware = ReplicaReadsMiddleware(view)
    middleware(rf.get("/api/v1/leaderboard/"))
    middleware(rf.get("/admin/matches/match/"))

    assert [state is not None and state.primary_only for state in seen] == [False, True]
    assert request_reads() is None


def test_the_middleware_is_not_used_without_a_replica(monkeypatch):
    monkeypatch.setattr(settings, "DATABASES", {"default": settings.DATABASES["default"]})
    with pytest.raises(MiddlewareNotUsed):
        ReplicaReadsMiddleware(lambda request: HttpResponse())


def settings_with(**environment) -> dict:
    """The databases, routers and task routes the settings read from ``environment``."""
    script = (
        "import json, django; django.setup(); from django.conf import settings; "
        "print(json.dumps({'databases': sorted(settings.DATABASES), "
        "'routers': getattr(settings, 'DATABASE_ROUTERS', []), "
        "'task_routes': settings.CELERY_TASK_ROUTES}))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "kort_site.settings"}
    env.pop("DATABASE_REPLICA_URL", None)
    env.update(environment)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_replica_and_the_task_queues_are_switched_on_by_settings():
    plain = settings_with(KORT_TASK_ROUTES="")
    scaled = settings_with(
        DATABASE_REPLICA_URL="postgres://reader@replica:5432/kort",
        KORT_TASK_ROUTES="ranking.finalize_match=finalize,matches.expire_vote=votes",
    )

    assert plain == {"databases": ["default"], "routers": [], "task_routes": {}}
    assert scaled == {
        "databases": ["default", "replica"],
        "routers": ["kort_site.db_router.ReplicaRouter"],
        "task_routes": {
            "ranking.finalize_match": {"queue": "finalize"},
            "matches.expire_vote": {"queue": "votes"},
        },
    }

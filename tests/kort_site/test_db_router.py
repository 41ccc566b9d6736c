"""Read replicas (docs/scaling.md): with ``DATABASE_REPLICA_URL`` the public reads go to the
replica, and every write, every read inside a transaction and every migration to the primary."""

import json
import os
import subprocess
import sys

import pytest
from django.db import transaction

from kort_site.db_router import ReplicaRouter
from players.models import Player

ROUTER = ReplicaRouter()


def test_a_read_outside_a_transaction_goes_to_the_replica():
    assert ROUTER.db_for_read(Player) == "replica"


@pytest.mark.django_db(transaction=True)
def test_reads_inside_a_transaction_and_writes_stay_on_the_primary():
    with transaction.atomic():
        assert ROUTER.db_for_read(Player) == "default"
    assert ROUTER.db_for_write(Player) == "default"
    assert ROUTER.allow_migrate("default", "players")
    assert not ROUTER.allow_migrate("replica", "players")


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

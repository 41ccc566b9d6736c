"""The sweeper as it runs (API.md "Nothing is lost"): Celery beat queues ``kort_site.sweep``
every ``KORT_SWEEP_SECONDS``, which sweeps every kind of work of every app; ``manage.py sweep``
runs it once, and on the embedded default does the work itself."""

from datetime import timedelta
from io import StringIO

import time_machine
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from delivery import sweep as delivery_sweep
from delivery.queue import queue
from kort_site.celery import app as celery_app
from kort_site.tasks import SWEEPS
from matches.models import Match
from tests.api_steps import ids_of, match_play, round_body
from tests.worker import broker_unreachable


def test_beat_queues_the_sweep_every_sweep_period():
    entry = settings.CELERY_BEAT_SCHEDULE["sweep"]

    assert celery_app.tasks[entry["task"]].name == "kort_site.sweep"
    assert entry["schedule"] == settings.KORT_SWEEP_SECONDS == 10
    assert entry["options"] == {"expires": settings.KORT_SWEEP_SECONDS}


def test_the_sweep_covers_every_kind_of_work_with_a_task_of_its_own():
    assert [(kind.work, kind.task) for kind in SWEEPS] == [
        ("matches awaiting finalization", "ranking.finalize_match"),
        ("live votes past their deadline", "matches.expire_bavan_vote"),
        ("live votes with bot votes due", "matches.cast_bot_votes"),
    ]
    assert all(kind.task in celery_app.tasks for kind in SWEEPS)


def test_manage_py_sweep_finalizes_a_lost_match_on_the_embedded_default(service, cast):
    with broker_unreachable():
        match_id = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    out = StringIO()

    later = timezone.now() + timedelta(seconds=settings.KORT_SWEEP_GRACE_SECONDS + 1)
    with time_machine.travel(later):
        call_command("sweep", stdout=out)

    assert out.getvalue().splitlines() == [
        "matches awaiting finalization: 1",
        "live votes past their deadline: 0",
        "live votes with bot votes due: 0",
    ]
    assert Match.objects.get(pk=match_id).status == "finalized"


def test_the_task_queues_again_exactly_the_work_lost_past_the_grace(service, cast, monkeypatch):
    """Two matches whose finalization was lost: the one completed more than
    ``KORT_SWEEP_GRACE_SECONDS`` ago is queued again (and finalized, the tasks being
    in-process), the one completed within the grace is left to its own task; a second sweep
    finds nothing."""
    grace = timedelta(seconds=settings.KORT_SWEEP_GRACE_SECONDS)
    with broker_unreachable():
        with time_machine.travel(timezone.now() - 2 * grace):
            lost = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
        recent = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    queued = []

    def recorded(task: str, pk: int) -> bool:
        queued.append((task, pk))
        return queue(task, pk)

    monkeypatch.setattr(delivery_sweep, "queue", recorded)
    first = celery_app.tasks["kort_site.sweep"].delay().get()
    swept = list(queued)
    second = celery_app.tasks["kort_site.sweep"].delay().get()

    assert first == {
        "matches awaiting finalization": 1,
        "live votes past their deadline": 0,
        "live votes with bot votes due": 0,
    }
    assert swept == [("ranking.finalize_match", lost)]
    statuses = dict(Match.objects.filter(pk__in=[lost, recent]).values_list("pk", "status"))
    assert statuses == {lost: "finalized", recent: "completed"}
    assert second == dict.fromkeys(first, 0)
    assert queued == swept

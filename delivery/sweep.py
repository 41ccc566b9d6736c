"""The sweeper: finds work whose task was lost and queues it again (API.md "Conventions",
"Nothing is lost").

A task can be lost on its way: the broker was down when it was queued, or a worker died holding
it. The work itself is stored, so it can be found again: each app that owns timed or deferred
work declares what is overdue as a :class:`Sweep` (``ranking.sweeps``,
``matches.live_vote.sweeps``), and the periodic task ``kort_site.sweep`` (Celery beat, every
``KORT_SWEEP_SECONDS``) queues the task of each overdue id again. Work is overdue once it was due
more than ``KORT_SWEEP_GRACE_SECONDS`` ago, so the sweeper does not race the task queued on the
normal path; every swept task is idempotent, so a duplicate changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from delivery.queue import queue

SWEEP_LIMIT = 500
"""At most this many tasks of each kind per sweep, oldest first; the next sweep takes the rest.
It bounds a sweep's time, and the duplicates a sweep adds to a queue that is merely slow."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sweep:
    """One kind of work the sweeper looks for.

    ``work`` names it, for the logs and ``manage.py sweep`` ("matches awaiting finalization");
    ``task`` is the name of the idempotent task that does the work of one id;
    ``overdue(before)`` returns the rows whose work was due before ``before`` and is not done,
    oldest first (the task queued for a row takes its primary key).
    """

    work: str
    task: str
    overdue: Callable[[datetime], QuerySet]


def overdue_before(now: datetime | None = None) -> datetime:
    """The moment before which due work counts as lost: ``KORT_SWEEP_GRACE_SECONDS`` before
    ``now`` (default: the current time)."""
    return (now or timezone.now()) - timedelta(seconds=settings.KORT_SWEEP_GRACE_SECONDS)


def sweep(sweeps: Iterable[Sweep], *, now: datetime | None = None) -> dict[str, int]:
    """Queue again the task of every overdue row of each kind in ``sweeps`` (at most
    :data:`SWEEP_LIMIT` per kind). Returns how many tasks were queued, by ``work``.

    A broker that cannot be reached ends the sweep (logged by ``delivery.queue``); the next
    sweep tries again. With tasks eager (the embedded default) each task runs here, in-process.
    """
    before = overdue_before(now)
    queued: dict[str, int] = {}
    for kind in sweeps:
        queued[kind.work] = 0
        for pk in list(kind.overdue(before).values_list("pk", flat=True)[:SWEEP_LIMIT]):
            if not queue(kind.task, pk):
                return queued
            queued[kind.work] += 1
        if queued[kind.work]:
            log.warning("swept %d %s: their tasks are queued again", queued[kind.work], kind.work)
    return queued

"""The site's periodic tasks. The sweeper (API.md "Conventions", "Nothing is lost"): Celery
beat queues it every ``KORT_SWEEP_SECONDS`` (``CELERY_BEAT_SCHEDULE`` in settings.py; with no
broker the development server runs that schedule itself, ``kort_site.embedded_beat``), and it
queues again the task of all work that is overdue (``delivery.sweep``). Each app declares its
own kinds of work in its ``sweeps`` module; a new kind is one more entry in :data:`SWEEPS`. The
purge of old idempotency keys runs every ``KORT_IDEMPOTENCY_PURGE_SECONDS``."""

from celery import shared_task

from delivery.sweep import sweep
from idempotency.services import keys_purge
from matches.live_vote import sweeps as live_vote_sweeps
from ranking import sweeps as ranking_sweeps

SWEEP_TASK = "kort_site.sweep"
PURGE_TASK = "kort_site.purge_idempotency_keys"

SWEEPS = (*ranking_sweeps.SWEEPS, *live_vote_sweeps.SWEEPS)
"""Every kind of work the sweeper looks for."""


@shared_task(name=SWEEP_TASK)
def sweep_overdue_work() -> dict[str, int]:
    """Queue again the task of every overdue piece of work; returns how many, by kind."""
    return sweep(SWEEPS)


@shared_task(name=PURGE_TASK)
def purge_idempotency_keys() -> int:
    """Delete the idempotency keys older than ``KORT_IDEMPOTENCY_HOURS``; returns how many
    (API.md "Conventions")."""
    return keys_purge()

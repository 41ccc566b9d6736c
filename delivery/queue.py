"""Queueing a task by its name, on commit, without letting an unreachable broker fail the
request (API.md "Conventions", "Nothing is lost").

A lower app queues a higher app's task by its name (``"ranking.finalize_match"``), so it never
imports it. The work itself is already stored when the task is queued, so a broker that cannot
be reached costs a warning, not the answer: the sweeper (:mod:`delivery.sweep`) queues the work
again once the broker is back. Publishing fails fast (the retry policy and socket timeouts of
``kort_site/settings.py``), so a request never waits long for a broker that is down.
"""

from __future__ import annotations

import logging
from datetime import datetime

from celery import current_app
from django.db import transaction
from kombu.exceptions import OperationalError as BrokerError
from prometheus_client import Counter

log = logging.getLogger(__name__)

PUBLISH_FAILURES = Counter(
    "kort_queue_publish_failures",
    "Tasks that could not be handed to the broker (the sweeper queues their work again).",
)


def queue(task: str, *args: int, eta: datetime | None = None) -> bool:
    """Queue the task named ``task`` with ``args`` (ids), to run at ``eta`` (None: at once);
    with tasks eager (the embedded default) it runs in-process now.

    Returns True if the task was queued (or run), False if the broker could not be reached:
    that is logged as a warning and nothing is raised.

    Raises:
        KeyError: no task of that name is registered (a bug, not an outage).
    """
    queued = current_app.tasks[task]
    try:
        if eta is None:
            queued.apply_async(args)
        else:
            queued.apply_async(args, eta=eta)
    except BrokerError as error:
        PUBLISH_FAILURES.inc()
        log.warning(
            "could not queue %s %s, the sweeper will queue it again: %s", task, list(args), error
        )
        return False
    return True


def queue_on_commit(task: str, *args: int, eta: datetime | None = None) -> None:
    """Queue the task named ``task`` with ``args`` (see :func:`queue`) once the current
    transaction commits; at once outside a transaction. Never raises for the broker."""
    transaction.on_commit(lambda: queue(task, *args, eta=eta))

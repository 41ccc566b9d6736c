"""Celery beat inside the development server, on the embedded default (no broker, tasks run
in-process): nothing else would run ``CELERY_BEAT_SCHEDULE`` there, so a live Bavan vote settled
by the bots or by its deadline would never be resolved, a match never finalized after it, a
season never ended on its own (API.md "Conventions", "Nothing is lost"; KORT_RULES §4, §10).

``manage.py runserver`` (``kort_site/management/commands/runserver.py``) starts
:func:`start` in the serving process; with a broker the real Celery beat runs the schedule and
this never starts. Each entry runs in this thread, eagerly, first at the start and then every
``schedule`` seconds; a task that fails is logged and runs again at its next time.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any, Protocol

from celery import current_app
from django.db import connections

log = logging.getLogger(__name__)

Entry = Mapping[str, Any]
"""One entry of ``CELERY_BEAT_SCHEDULE``: ``task`` (its name), ``schedule`` (seconds or a
timedelta), optional ``args`` and ``kwargs``."""


class Stop(Protocol):
    def is_set(self) -> bool: ...

    def wait(self, timeout: float | None = None) -> bool: ...


def seconds_between(entry: Entry) -> float:
    """How often ``entry`` runs, in seconds."""
    schedule = entry["schedule"]
    return schedule.total_seconds() if isinstance(schedule, timedelta) else float(schedule)


def run_entry(entry: Entry) -> None:
    """Run the entry's task now, in this thread."""
    task = current_app.tasks[entry["task"]]
    task.apply(args=entry.get("args", ()), kwargs=entry.get("kwargs", {}))


def run_schedule(
    schedule: Mapping[str, Entry],
    stop: Stop,
    *,
    clock: Callable[[], float] = time.monotonic,
    run: Callable[[Entry], None] = run_entry,
) -> None:
    """Run each entry of ``schedule`` when it is due until ``stop`` is set: every entry at once,
    then each every ``schedule`` seconds. A task's exception is logged and the loop goes on;
    the thread's database connections are closed after each run."""
    next_run = {name: clock() for name in schedule}
    while not stop.is_set():
        for name, entry in schedule.items():
            if next_run[name] > clock():
                continue
            try:
                run(entry)
            except Exception:
                log.exception("periodic task %s (%s) failed", name, entry["task"])
            finally:
                connections.close_all()
            next_run[name] = clock() + seconds_between(entry)
        if next_run:
            stop.wait(max(0.0, min(next_run.values()) - clock()))
        else:
            stop.wait()


def start(schedule: Mapping[str, Entry]) -> threading.Event:
    """Run ``schedule`` in a daemon thread of this process; returns the event that stops it."""
    stop = threading.Event()
    threading.Thread(
        target=run_schedule, args=(schedule, stop), name="embedded-beat", daemon=True
    ).start()
    log.info(
        "no broker: this process runs the periodic tasks itself (%s)",
        ", ".join(f"{name} every {seconds_between(e):g} s" for name, e in schedule.items()),
    )
    return stop

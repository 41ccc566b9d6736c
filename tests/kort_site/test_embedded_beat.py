"""Celery beat inside the development server on the embedded default (kort_site.embedded_beat):
the loop runs each entry when it is due, survives a task that fails, closes its database
connections after each run and stops when asked. A fake clock that the loop's waits move on
keeps it fast and deterministic."""

import threading
from unittest import mock

import pytest
from django.conf import settings

from kort_site import embedded_beat


class FakeTime:
    """A clock the loop's waits move on, and a stop that sets itself at ``until``."""

    def __init__(self, until: float):
        self.now = 0.0
        self.until = until
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    def is_set(self) -> bool:
        return self.now >= self.until

    def wait(self, timeout: float | None = None) -> bool:
        assert timeout is not None
        self.waits.append(timeout)
        self.now = min(self.now + timeout, self.until)
        return self.is_set()


SCHEDULE = {
    "often": {"task": "often", "schedule": 10},
    "seldom": {"task": "seldom", "schedule": 25, "args": (1,)},
}


def run_for(seconds: float, run) -> FakeTime:
    time = FakeTime(until=seconds)
    embedded_beat.run_schedule(SCHEDULE, time, clock=time.clock, run=run)
    return time


def test_each_entry_runs_at_the_start_then_every_schedule_seconds():
    ran: list[tuple[float, str]] = []
    time = FakeTime(until=0)

    def run(entry):
        ran.append((time.now, entry["task"]))

    time.until = 60
    embedded_beat.run_schedule(SCHEDULE, time, clock=time.clock, run=run)

    assert ran == [
        (0, "often"),
        (0, "seldom"),
        (10, "often"),
        (20, "often"),
        (25, "seldom"),
        (30, "often"),
        (40, "often"),
        (50, "often"),
        (50, "seldom"),
    ]
    # It sleeps until the next entry is due, never busy-waits.
    assert all(wait > 0 for wait in time.waits)


def test_a_task_that_fails_is_logged_and_the_others_run_on(caplog):
    ran: list[str] = []

    def run(entry):
        ran.append(entry["task"])
        if entry["task"] == "often":
            raise RuntimeError("the database is locked")

    run_for(25, run)

    assert ran == ["often", "seldom", "often", "often"]
    failures = [r for r in caplog.records if r.name == "kort_site.embedded_beat"]
    assert len(failures) == 3
    assert "often" in failures[0].getMessage()
    assert failures[0].exc_info is not None


def test_the_database_connections_are_closed_after_each_run():
    with mock.patch.object(embedded_beat.connections, "close_all") as close_all:
        run_for(15, lambda entry: None)

    assert close_all.call_count == 3  # often at 0 and 10, seldom at 0


def test_a_stop_ends_the_thread_at_once():
    ran = threading.Event()

    def run(entry):
        ran.set()

    stop = threading.Event()
    thread = threading.Thread(
        target=embedded_beat.run_schedule, args=(SCHEDULE, stop), kwargs={"run": run}
    )
    thread.start()
    assert ran.wait(5)
    stop.set()
    thread.join(5)

    assert not thread.is_alive()


@pytest.mark.django_db
def test_an_entry_runs_its_task_in_this_thread():
    entry = settings.CELERY_BEAT_SCHEDULE["sweep"]

    embedded_beat.run_entry(entry)  # the sweeper, on an empty ladder: nothing to do

    with pytest.raises(KeyError):
        embedded_beat.run_entry({"task": "no.such.task", "schedule": 1})


def test_the_schedule_runs_only_inside_the_development_server():
    """The suite (and every other command) never starts it: only ``runserver`` does."""
    assert not any(t.name == "embedded-beat" for t in threading.enumerate())

"""The finalization task (KORT_RULES §7): queued by its name, so matches need not import the
ladder, and retried on transient database errors only."""

import pytest
from django.db import IntegrityError, OperationalError

from kort_site.celery import app as celery_app
from matches.rounds import FINALIZE_TASK as queued_finalization
from ranking import tasks


def test_matches_queue_the_finalization_task_by_its_name():
    assert queued_finalization == tasks.finalize_match.name == "ranking.finalize_match"
    assert celery_app.tasks[queued_finalization].name == tasks.finalize_match.name


@pytest.fixture
def failures_kept(monkeypatch):
    """Eager tasks keep their failure in the result instead of raising it, as a worker does;
    ``failures_kept(errors)`` makes the finalization raise ``errors`` in turn, then succeed,
    and returns the list of the match ids it was called with."""
    previous = celery_app.conf.task_eager_propagates
    celery_app.conf.task_eager_propagates = False

    def failing(*errors):
        calls = []

        def finalize(match_id):
            calls.append(match_id)
            if len(calls) <= len(errors):
                raise errors[len(calls) - 1]
            return True

        monkeypatch.setattr(tasks, "match_finalize", finalize)
        return calls

    yield failing
    celery_app.conf.task_eager_propagates = previous


def test_a_transient_database_error_is_retried(failures_kept):
    calls = failures_kept(OperationalError("connection lost"), OperationalError("deadlock"))

    result = tasks.finalize_match.delay(7)

    assert (result.state, result.get(), calls) == ("SUCCESS", True, [7, 7, 7])


@pytest.mark.parametrize(
    "bug",
    [IntegrityError("duplicate ledger row"), ValueError("no such outcome")],
    ids=["integrity", "value"],
)
def test_a_bug_is_not_retried(failures_kept, bug):
    calls = failures_kept(bug)

    result = tasks.finalize_match.delay(7)

    assert (result.state, result.result, calls) == ("FAILURE", bug, [7])

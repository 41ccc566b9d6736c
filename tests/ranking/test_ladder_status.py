"""``manage.py ladder_status``: the health of the pipeline (API.md "Nothing is lost"): the
matches waiting for finalization, the oldest one's age, how many are overdue, and the open live
votes past their deadline. It reports and exits 0."""

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command

from matches.live_vote.models import BavanVote
from tests.api_steps import ids_of, match_play, match_start, round_body, rounds_report
from tests.worker import broker_unreachable

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def status() -> list[str]:
    out = StringIO()
    call_command("ladder_status", stdout=out)  # raises on a non-zero exit status
    return out.getvalue().splitlines()


@pytest.fixture
def clock():
    with time_machine.travel(T0, tick=False) as traveller:
        yield traveller


def test_a_healthy_pipeline_has_nothing_waiting(service, cast):
    match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])  # finalized on commit

    assert status() == [
        "Matches waiting for finalization: 0",
        "Open live votes past their deadline: 0",
    ]


def test_waiting_matches_their_oldest_age_and_the_overdue_ones(clock, service, cast, settings):
    with broker_unreachable():
        oldest = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
        clock.move_to(T0 + timedelta(seconds=10))
        match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    clock.move_to(T0 + timedelta(seconds=12.5))

    assert status()[0] == (
        f"Matches waiting for finalization: 2, the oldest (match {oldest}) completed 12.5 s "
        f"ago; 1 overdue (waiting more than {settings.KORT_SWEEP_GRACE_SECONDS} s)"
    )


def test_open_votes_past_their_deadline(clock, service, cast):
    match_id = match_start(service, ids_of(cast))
    rounds_report(service, match_id, [round_body(0, 7, 0, "vote")])
    clock.move_to(T0 + timedelta(seconds=29))
    assert status()[1] == "Open live votes past their deadline: 0"

    clock.move_to(T0 + timedelta(seconds=33))
    vote = BavanVote.objects.get()
    assert status()[1] == (
        f"Open live votes past their deadline: 1, the oldest (vote {vote.pk}) 3.0 s past its "
        "deadline"
    )

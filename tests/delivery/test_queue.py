"""Queueing on commit never fails a request that stored its work (API.md "Conventions",
"Nothing is lost"): a broker that refuses or never answers costs a warning and a few seconds at
most, and the request answers 2xx with its work stored for the sweeper."""

import json
import logging
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from delivery.queue import queue
from matches.live_vote.models import BavanVote
from matches.models import Match
from matches.selectors import matches_awaiting_finalization
from ranking.models import CupChange
from tests.api_steps import ids_of, match_start, round_body, rounds_report
from tests.worker import broker_unreachable

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def warnings_of_queue(caplog):
    caplog.set_level(logging.WARNING, logger="delivery.queue")
    return caplog


def test_the_final_round_answers_201_while_the_broker_is_down(service, cast, warnings_of_queue):
    match_id = match_start(service, ids_of(cast))
    rounds_report(service, match_id, [round_body(0, 7, 3)])

    with broker_unreachable():
        started = time.monotonic()
        final = service.post(
            f"/api/v1/matches/{match_id}/rounds/", {"number": 2, **round_body(0, 7, 0, "stop")}
        )
        took = time.monotonic() - started

    assert final.status_code == 201, final.content
    assert final["Content-Type"] == "application/json"
    assert final.json()["match"]["status"] == "completed"
    assert took < 5
    # The round is stored and the match waits for the sweeper; no cups yet (KORT_RULES §7).
    match = Match.objects.get(pk=match_id)
    assert (match.status, match.rounds.count()) == ("completed", 2)
    assert list(matches_awaiting_finalization()) == [match]
    assert not CupChange.objects.exists()
    [warning] = warnings_of_queue.records
    assert warning.getMessage().startswith(
        f"could not queue ranking.finalize_match [{match_id}], the sweeper will queue it again: "
    )


def test_a_vote_opens_with_201_while_the_broker_is_down(service, cast, warnings_of_queue):
    match_id = match_start(service, ids_of(cast))

    with broker_unreachable():
        opened = service.post(
            f"/api/v1/matches/{match_id}/rounds/", {"number": 1, **round_body(0, 7, 0, "vote")}
        )

    assert opened.status_code == 201, opened.content
    assert opened.json()["status"] == "voting"
    assert BavanVote.objects.get().status == "open"
    assert "could not queue matches.expire_bavan_vote" in warnings_of_queue.text


def test_an_error_that_is_not_the_brokers_still_raises():
    with pytest.raises(KeyError):
        queue("no.such.task", 1)


SILENT_BROKER_PUBLISH = textwrap.dedent(
    """
    import json, time, django
    django.setup()
    from delivery.queue import queue
    started = time.monotonic()
    queued = queue("ranking.finalize_match", 1)
    print(json.dumps([queued, time.monotonic() - started]))
    """
)


def test_a_broker_that_never_answers_is_given_up_within_seconds():
    """A broker gone without closing its connections (a failover, a firewall) accepts and never
    answers; the settings' socket timeouts bound the wait (kort_site/settings.py)."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)  # connections complete in the backlog; nothing ever reads them
        env = {
            **os.environ,
            "CELERY_BROKER_URL": f"redis://127.0.0.1:{silent.getsockname()[1]}/0",
            "DJANGO_SETTINGS_MODULE": "kort_site.settings",
        }
        run = subprocess.run(
            [sys.executable, "-c", SILENT_BROKER_PUBLISH],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert run.returncode == 0, run.stderr
    queued, took = json.loads(run.stdout.splitlines()[-1])
    assert queued is False
    assert took < 8

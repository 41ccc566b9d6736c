"""The sweeper finalizes the matches whose finalization task was lost (API.md "Nothing is
lost"; KORT_RULES §7): completed more than ``KORT_SWEEP_GRACE_SECONDS`` ago and not finalized.
A swept duplicate of a finalization changes nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from delivery.queue import queue
from delivery.sweep import sweep
from matches.models import Match
from players.models import Player
from ranking.models import CupChange
from ranking.sweeps import SWEEPS
from tests.api_steps import ids_of, match_play, match_read, round_body, team_cups
from tests.worker import broker_unreachable

SWEPT = "matches awaiting finalization"


def past_the_grace(settings):
    return timezone.now() + timedelta(seconds=settings.KORT_SWEEP_GRACE_SECONDS + 1)


@pytest.fixture
def lost(service, cast):
    """A ranked match of the cast ended by seat 0's Kort (A +10, B -5) while the broker was
    down: completed, its finalization task lost."""
    with broker_unreachable():
        match_id = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    assert Match.objects.get(pk=match_id).status == "completed"
    return match_id


def test_the_sweeper_finalizes_a_match_whose_task_was_lost(lost, api, cast, settings):
    assert sweep(SWEEPS, now=past_the_grace(settings)) == {SWEPT: 1}

    match = match_read(api, lost)
    assert match["status"] == "finalized"
    assert match["cups"] == team_cups(ids_of(cast), +10, -5)
    assert CupChange.objects.filter(match_id=lost).count() == 4


def test_a_match_completed_within_the_grace_is_left_to_its_own_task(lost, settings):
    within = timezone.now() + timedelta(seconds=settings.KORT_SWEEP_GRACE_SECONDS - 1)

    assert sweep(SWEEPS, now=within) == {SWEPT: 0}
    assert Match.objects.get(pk=lost).status == "completed"


def test_finalized_and_unfinished_matches_are_not_swept(service, cast, settings):
    match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])  # finalized on commit
    match_play(service, ids_of(cast), [round_body(0, 7, 3)])  # 1:0 of 3, still on

    assert sweep(SWEEPS, now=past_the_grace(settings)) == {SWEPT: 0}


def test_swept_duplicates_of_a_finalization_change_nothing(lost, cast, settings):
    sweep(SWEEPS, now=past_the_grace(settings))
    applied = list(Player.objects.order_by("pk").values_list("cups", "best_cups"))

    assert sweep(SWEEPS, now=past_the_grace(settings)) == {SWEPT: 0}
    assert queue("ranking.finalize_match", lost) is True  # a late duplicate, run in-process

    assert list(Player.objects.order_by("pk").values_list("cups", "best_cups")) == applied
    assert applied == [(10, 10), (-5, 0), (10, 10), (-5, 0)]
    assert CupChange.objects.count() == 4

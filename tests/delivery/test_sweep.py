"""The sweeper's own rules (API.md "Nothing is lost"): a kind of work is one :class:`Sweep`;
each sweep takes at most ``SWEEP_LIMIT`` of a kind, oldest first, and a broker that cannot be
reached ends it after one warning."""

import logging
from datetime import timedelta

from django.utils import timezone

from delivery import sweep as sweeper
from delivery.sweep import Sweep, sweep
from matches.models import Match, MatchStatus
from tests.api_steps import ids_of, match_play, round_body
from tests.worker import broker_unreachable

KORTS = [round_body(0, 7, 0, "stop")]


def completed_while_the_broker_was_down(service, cast, count: int) -> list[int]:
    with broker_unreachable():
        return [match_play(service, ids_of(cast), KORTS) for _ in range(count)]


def later(settings):
    return timezone.now() + timedelta(seconds=settings.KORT_SWEEP_GRACE_SECONDS + 1)


def ranked_matches_awaiting_finalization(before):
    return Match.objects.filter(status=MatchStatus.COMPLETED, mode="ranked").order_by("pk")


RANKED = Sweep("ranked matches", "ranking.finalize_match", ranked_matches_awaiting_finalization)
"""A kind of work of the tests' own: any app adds one the same way."""


def test_a_sweep_takes_at_most_the_limit_oldest_first(service, cast, settings, monkeypatch):
    *_, third = completed_while_the_broker_was_down(service, cast, 3)
    monkeypatch.setattr(sweeper, "SWEEP_LIMIT", 2)

    assert sweep([RANKED], now=later(settings)) == {"ranked matches": 2}
    assert list(Match.objects.filter(status="completed").values_list("pk", flat=True)) == [third]
    assert sweep([RANKED], now=later(settings)) == {"ranked matches": 1}
    assert sweep([RANKED], now=later(settings)) == {"ranked matches": 0}


def test_a_broker_that_cannot_be_reached_ends_the_sweep(service, cast, settings, caplog):
    completed_while_the_broker_was_down(service, cast, 2)
    other = Sweep("others", "ranking.finalize_match", ranked_matches_awaiting_finalization)
    caplog.set_level(logging.WARNING, logger="delivery.queue")
    caplog.clear()

    with broker_unreachable():
        assert sweep([RANKED, other], now=later(settings)) == {"ranked matches": 0}

    assert len(caplog.records) == 1
    assert Match.objects.filter(status="completed").count() == 2


def test_what_was_swept_is_logged(service, cast, settings, caplog):
    completed_while_the_broker_was_down(service, cast, 2)
    caplog.set_level(logging.WARNING, logger="delivery.sweep")
    caplog.clear()

    sweep([RANKED], now=later(settings))

    assert caplog.messages == ["swept 2 ranked matches: their tasks are queued again"]

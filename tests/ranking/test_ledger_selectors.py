"""Reads of the cups ledger and of players by name (KORT_RULES §7; API.md "Players")."""

import pytest

from ranking.selectors import cups_ledger, player_named
from tests.api_steps import ids_of, match_play, round_body

pytestmark = pytest.mark.django_db

KORT = [round_body(0, 7, 0, "stop")]  # team A +10, team B -5
BAVAN_FAILED = [round_body(0, 9, 1, "go")]  # team A -5, team B +10


def test_the_ledger_is_newest_first_with_the_total_after_each_change(service, cast):
    seats = ids_of(cast)
    matches = [match_play(service, seats, rounds) for rounds in (KORT, BAVAN_FAILED, KORT)]
    amir = cast[0]
    amir.refresh_from_db()

    entries = cups_ledger(amir, 10)
    assert [(e.match_id, e.delta, e.cups_after) for e in entries] == [
        (matches[2], 10, 15),
        (matches[1], -5, 5),
        (matches[0], 10, 10),
    ]
    assert [(e.delta, e.cups_after) for e in cups_ledger(amir, 2)] == [(10, 15), (-5, 5)]
    assert entries[0].at >= entries[1].at >= entries[2].at


def test_a_player_without_ranked_matches_has_an_empty_ledger(cast):
    assert cups_ledger(cast[0], 10) == []


def test_a_player_is_found_by_username_ignoring_case(cast):
    assert player_named("AMIR") == cast[0]
    assert player_named("amir") == cast[0]
    assert player_named("ami") is None

"""A player's cups ledger through the API (API.md "Seasons": ``/players/{id}/cups/``): newest
first, paginated, each row with its kind, match, season and the running total; a client draws
the cups-over-time chart from it, and the totals add up to the player's cups (KORT_RULES §7)."""

import pytest

from matches.models import Match
from ranking.services import match_void
from tests.api_steps import PLAYERS, player_read
from tests.ranking.season_steps import season_end, season_one_play


@pytest.fixture
def ladder(service):
    ids = season_one_play(service)
    season_end()
    match_void(Match.objects.get(seats__player_id=ids["cyrus"]).pk, "a broken table")
    return ids


def ledger(api, player_id, **params) -> dict:
    response = api.get(f"{PLAYERS}{player_id}/cups/", params)
    assert response.status_code == 200, response.data
    return response.data


def test_the_ledger_newest_first(api, ladder):
    rows = ledger(api, ladder["amir"])["results"]

    # amir: the Kort +10 (10), the 3:1 +4 (14), the reset -7 (7), the Kort's void -10 (-3).
    assert [(r["kind"], r["delta"], r["cups_after"], r["season"]) for r in rows] == [
        ("void", -10, -3, 2),
        ("season_reset", -7, 7, 2),
        ("match", 4, 14, 1),
        ("match", 10, 10, 1),
    ]
    assert rows[0]["match"] == rows[3]["match"]
    assert rows[1]["match"] is None
    assert [r["at"] for r in rows] == sorted((r["at"] for r in rows), reverse=True)
    assert set(rows[0]) == {"at", "delta", "cups_after", "kind", "match", "season"}
    assert sum(r["delta"] for r in rows) == player_read(api, ladder["amir"])["cups"]


def test_the_ledger_is_paginated(api, ladder):
    page = ledger(api, ladder["amir"])
    assert set(page) == {"count", "next", "previous", "results"}
    assert (page["count"], page["next"], page["previous"]) == (4, None, None)


def test_the_ledger_of_a_player_without_cups_and_of_nobody(api, ladder):
    assert ledger(api, ladder["jaleh"])["results"] == []
    assert ledger(api, ladder["robo"])["results"] == []
    assert api.get(f"{PLAYERS}999999/cups/").status_code == 404
    assert api.get(f"{PLAYERS}999999/seasons/").status_code == 404

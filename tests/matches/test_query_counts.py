"""How many data statements each write and read of matches costs, so a later change cannot
quietly add an N+1 (SAVEPOINT / RELEASE and the queued tasks not counted: finalization runs in
its own task, and tests/ranking pins its own count). API.md "Matches" (creating a match, round
reports, reading a match, the list), "Players" (a player's match history) and KORT_RULES §6
through ``POST /kort/bavan-guaranteed/``."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api_steps import MATCHES, PLAYERS, ids_of, korts_won, match_start, round_body
from tests.matches.test_bavan_search_api import POSITION
from tests.matches.test_bavan_search_api import URL as BAVAN_GUARANTEED
from tests.queries import assert_flat, data_statements, get_counted, post_counted


@pytest.fixture
def match_id(service, cast) -> int:
    return match_start(service, ids_of(cast))


def test_a_round_report_costs_at_most_6_statements(service, match_id):
    _, statements = post_counted(
        service, f"{MATCHES}{match_id}/rounds/", {"number": 1, **round_body(0, 7, 3)}
    )

    assert len(statements) <= 6, "\n".join(statements)


def test_the_final_round_costs_at_most_7_statements(service, match_id):
    post_counted(service, f"{MATCHES}{match_id}/rounds/", {"number": 1, **round_body(0, 7, 3)})

    _, statements = post_counted(
        service, f"{MATCHES}{match_id}/rounds/", {"number": 2, **round_body(0, 7, 0, "stop")}
    )

    assert len(statements) <= 7, "\n".join(statements)


def test_a_round_report_does_not_grow_with_the_rounds_before_it(service, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    # Room match to 7: trump stays with seat 0 while team A wins.
    counts = []
    for number in range(1, 6):
        _, statements = post_counted(
            service, f"{MATCHES}{match_id}/rounds/", {"number": number, **round_body(0, 7, 3)}
        )
        counts.append(len(statements))

    assert len(set(counts)) == 1, counts


@pytest.mark.parametrize(
    ("mode", "rounds"),
    [("ranked", 3), ("room", 7)],
    ids=["ranked-3-rounds", "room-7-rounds"],
)
def test_a_whole_match_costs_7_statements_whatever_its_rounds(service, cast, mode, rounds):
    # Team A wins every round 7:3, so trump stays with seat 0 (KORT_RULES §5) to the target.
    body = {"mode": mode, "seats": ids_of(cast), "rounds": [round_body(0, 7, 3)] * rounds}

    status, statements = post_counted(service, MATCHES, body)

    assert status == 201
    assert len(statements) == 7, "\n".join(statements)


def test_reading_a_match_does_not_grow_with_its_rounds(api, service, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    for number in range(1, 4):
        post_counted(
            service, f"{MATCHES}{match_id}/rounds/", {"number": number, **round_body(0, 7, 3)}
        )

    with CaptureQueriesContext(connection) as captured:
        assert api.get(f"{MATCHES}{match_id}/").status_code == 200

    assert len(data_statements(captured)) <= 4, "\n".join(data_statements(captured))


def test_creating_a_match_without_rounds_costs_the_same_for_players_with_0_or_6_matches(
    service, cast
):
    first = ids_of(cast)
    _, fresh = post_counted(service, MATCHES, {"mode": "ranked", "seats": first})
    for player in cast:
        korts_won(service, player.id, 6)

    _, seasoned = post_counted(service, MATCHES, {"mode": "ranked", "seats": first})

    assert_flat(fresh, seasoned, at_most=4)


def test_the_match_list_costs_the_same_statements_for_2_or_8_matches(api, service, cast):
    korts_won(service, cast[0].id, 2)
    two = get_counted(api, MATCHES)
    korts_won(service, cast[0].id, 6)

    eight = get_counted(api, MATCHES)

    assert_flat(two, eight, at_most=5)


def test_a_players_history_page_costs_the_same_statements_for_1_or_6_matches(api, service, cast):
    korts_won(service, cast[0].id, 1)
    one = get_counted(api, f"{PLAYERS}{cast[0].id}/matches/")
    korts_won(service, cast[0].id, 5)

    six = get_counted(api, f"{PLAYERS}{cast[0].id}/matches/")

    assert_flat(one, six, at_most=5)


def test_the_bavan_guaranteed_search_reads_nothing_stored(api):
    _, statements = post_counted(api, BAVAN_GUARANTEED, POSITION)

    assert statements == []

"""The "My games" match history through the API (API.md "Players",
``GET /players/{id}/matches/``): its order, filters and pages."""

from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match, Seat
from ranking.services import match_void
from tests.api_steps import (
    MATCHES,
    PLAYERS,
    ids_of,
    match_play,
    match_start,
    player_read,
    round_body,
    rounds_report,
)
from tests.matches.kort import golden_rounds as golden


@pytest.fixture
def history(service, cast):
    """Amir (seat 0, team A) and Bita (seat 1, team B) play four matches, in this order."""
    seats = ids_of(cast)
    return {
        "ranked-won-by-A": match_play(service, seats, [round_body(0, 7, 0, "stop")]),
        "room-won-by-B": match_play(service, seats, [round_body(0, 0, 7, "stop")], mode="room"),
        "ranked-won-by-B": match_play(
            service, seats, [round_body(1, 0, 7, "stop")], first_trump_seat=1
        ),
        "ranked-live": match_start(service, seats),
    }


def history_ids(api, player_id, **filters) -> list[int]:
    page = player_read(
        api, player_id, "matches/?" + "&".join(f"{k}={v}" for k, v in filters.items())
    )
    return [match["id"] for match in page["results"]]


HISTORY_FILTERS = [
    # seat, filters, matches newest first
    pytest.param(0, {}, ["ranked-live", "ranked-won-by-B", "room-won-by-B", "ranked-won-by-A"]),
    pytest.param(0, {"mode": "ranked"}, ["ranked-live", "ranked-won-by-B", "ranked-won-by-A"]),
    pytest.param(0, {"mode": "room"}, ["room-won-by-B"]),
    pytest.param(0, {"result": "won"}, ["ranked-won-by-A"]),
    pytest.param(0, {"result": "lost"}, ["ranked-won-by-B", "room-won-by-B"]),
    pytest.param(1, {"result": "won"}, ["ranked-won-by-B", "room-won-by-B"]),
    pytest.param(1, {"result": "lost"}, ["ranked-won-by-A"]),
    pytest.param(1, {"mode": "ranked", "result": "won"}, ["ranked-won-by-B"]),
    pytest.param(2, {"mode": "room", "result": "won"}, []),
]


@pytest.mark.parametrize(("seat", "filters", "names"), HISTORY_FILTERS)
def test_history_newest_first_and_filtered(api, cast, history, seat, filters, names):
    assert history_ids(api, cast[seat].id, **filters) == [history[name] for name in names]


@pytest.mark.parametrize("filters", [{"result": "drawn"}, {"mode": "blitz"}])
def test_history_refuses_an_unknown_filter_value(api, cast, filters):
    (name,) = filters
    response = api.get(f"{PLAYERS}{cast[0].id}/matches/", filters)
    assert response.status_code == 400
    assert name in response.data


def test_history_holds_only_the_players_matches(service, api, cast, history):
    others = [service.post(PLAYERS, {"username": name}).data["id"] for name in ("eve", "farid")]
    theirs = match_start(service, [others[0], cast[1].id, others[1], cast[3].id])

    assert theirs not in history_ids(api, cast[0].id)
    assert history_ids(api, cast[1].id)[0] == theirs


def created_at(match_ids, at) -> None:
    """Store ``at`` as the creation time of the matches, and of their seats, which repeat it."""
    Match.objects.filter(pk__in=match_ids).update(created_at=at)
    Seat.objects.filter(match_id__in=match_ids).update(match_created_at=at)


def test_history_orders_by_creation_time_then_id(service, api, cast):
    first, second, third = (match_start(service, ids_of(cast)) for _ in range(3))
    now = timezone.now()
    # The oldest id is the newest match; the other two share a creation time.
    created_at([first], now + timedelta(hours=1))
    created_at([second, third], now)

    assert history_ids(api, cast[0].id) == [first, third, second]


def test_history_is_paginated(service, api, cast):
    created = [match_start(service, ids_of(cast)) for _ in range(53)]

    first_page = player_read(api, cast[0].id, "matches/")
    second_page = api.get(first_page["next"]).data
    back = api.get(second_page["previous"]).data

    # Cursor pages carry no count: the 53 matches are the two pages'.
    assert [len(page["results"]) for page in (first_page, second_page)] == [50, 3]
    assert first_page["previous"] is None
    assert second_page["next"] is None
    shown = [m["id"] for m in first_page["results"] + second_page["results"]]
    assert shown == sorted(created, reverse=True)
    assert back == first_page


def test_history_shows_the_matches_in_full(service, api, cast):
    seats = ids_of(cast)
    match_id = match_play(service, seats, [round_body(0, 7, 0, "stop")])

    (shown,) = player_read(api, seats[0], "matches/")["results"]
    assert shown == api.get(f"{MATCHES}{match_id}/").data


def test_history_shows_each_kind_of_match_as_its_own_answer_does(service, api, cast):
    """The history reads its matches as plain values, not as the match API's models: each row
    is still the match's ``/matches/{id}/``, whatever the match (finalized with its cups and
    their breakdown, void, a room match, a round with its full record, a live vote open)."""
    seats = ids_of(cast)
    voided = match_play(service, seats, [round_body(0, 7, 0, "stop")])
    match_void(voided, "a cheater at the table")
    match_play(service, seats, [round_body(0, 0, 7, "stop")], mode="room")
    recorded = match_start(service, seats)
    rounds_report(service, recorded, [{**round_body(0, 7, 3), "play": golden.WIN}])
    voting = match_start(service, seats)
    rounds_report(service, voting, [round_body(0, 7, 0, "vote")])
    match_play(service, seats, [round_body(1, 0, 7, "stop")], first_trump_seat=1)

    shown = player_read(api, seats[0], "matches/")["results"]

    assert [(m["mode"], m["status"]) for m in shown] == [
        ("ranked", "finalized"),
        ("ranked", "in_progress"),
        ("ranked", "in_progress"),
        ("room", "finalized"),
        ("ranked", "void"),
    ]
    assert shown[1]["rounds"][0]["status"] == "voting"
    assert shown[2]["rounds"][0]["play"] is not None
    assert shown[0]["cups_breakdown"] is not None and shown[-1]["cups"] is not None
    assert shown == [api.get(f"{MATCHES}{match['id']}/").data for match in shown]

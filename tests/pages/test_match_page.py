"""A match's page (API.md "Players' pages": ``/{lang}/matches/{id}/``): the seats, each round
with its trump caller, tricks, outcome and wins (KORT_RULES §2), the cups (§7), and the live
Bavan vote of the last round (§4) as the API's vote read shows it."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from pages.labels import card_shown
from players.services import player_create, player_token
from ranking.services import match_void
from tests.api_steps import (
    ids_of,
    match_play,
    match_read,
    match_start,
    player_read,
    round_body,
    rounds_report,
)
from tests.matches.play_records import bot_record, played
from tests.pages.html import table_rows, text_of

pytestmark = pytest.mark.django_db

OPENED = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)


def page(client, path: str):
    response = client.get(path)
    assert response.status_code == 200
    return response


def test_seats_rounds_and_cups(api, client, service, cast):
    rounds = [round_body(0, 7, 3), round_body(0, 2, 7), round_body(1, 0, 7, "stop")]
    match_id = match_play(service, ids_of(cast), rounds)  # A 1, B 1 then a Kort of B: 1:6
    cups = match_read(api, match_id)["cups"]

    html = page(client, f"/en/matches/{match_id}/").content
    seats = table_rows(html, "seats")
    assert [row.cells[:3] for row in seats] == [
        ["0", "Team A", "Amir"],
        ["1", "Team B", "Bita"],
        ["2", "Team A", "Cyrus"],
        ["3", "Team B", "Dara"],
    ]
    assert [row.links for row in seats] == [[f"/en/players/{p.id}/"] for p in cast]
    shown_cups = [row.cells[3].replace("\u2212", "-") for row in seats]
    assert shown_cups == [f"{cups[str(p.id)]:+d}" for p in cast]
    assert [row.cells for row in table_rows(html, "rounds")] == [
        ["1", "seat 0, Amir", "7:3", "Win", "Team A", "+1", "—"],  # trump: no play record
        ["2", "seat 0, Amir", "2:7", "Win", "Team B", "+1", "—"],
        ["3", "seat 1, Bita", "0:7", "Kort", "Team B", "+5", "—"],
    ]
    text = text_of(html)
    assert "Status Finished" in text
    assert "Wins A 1 : 6 B" in text
    assert "Winner Team B" in text


@pytest.mark.parametrize(
    ("rounds", "outcomes"),
    [
        ([round_body(0, 7, 1), round_body(0, 7, 0, "stop")], ["Победа", "Корт"]),
        ([round_body(0, 7, 0, "stop"), round_body(2, 0, 7, "stop")], ["Корт", "Ат-корт"]),
        ([round_body(0, 13, 0, "go")], ["Бавян"]),
        ([round_body(0, 0, 13, "go")], ["Ат-бавян"]),
        ([round_body(0, 9, 1, "go"), round_body(1, 9, 1, "go")], ["Провал бавяна"] * 2),
    ],
)
def test_the_russian_page_names_the_outcomes_as_the_russian_rules(
    client, service, cast, rounds, outcomes
):
    room = match_play(service, ids_of(cast), rounds, mode="room")
    html = page(client, f"/ru/matches/{room}/").content
    assert [row.cells[3] for row in table_rows(html, "rounds")] == outcomes
    assert "Матчи в комнате не дают кубков." in text_of(html)


@pytest.fixture
def clock():
    with time_machine.travel(OPENED, tick=False) as traveller:
        yield traveller


@pytest.fixture
def voting(service, cast, clock):
    """A room match whose round 1 reached 7:0 for team A (Amir, Cyrus): the vote is open."""
    match_id = match_start(service, ids_of(cast), mode="room")
    rounds_report(service, match_id, [round_body(0, 7, 0, "vote")])
    return match_id


def vote(api, player, match_id: int, choice: str):
    voted = api.as_player(player_token(player).key).post(
        f"/api/v1/matches/{match_id}/rounds/1/vote/", {"vote": choice}
    )
    assert voted.status_code == 201, voted.data


def test_an_open_vote_shows_its_deadline_and_refreshes(client, cast, voting, clock):
    clock.move_to(OPENED + timedelta(seconds=12))
    response = page(client, f"/en/matches/{voting}/")
    html = response.content.decode()
    text = text_of(html)
    assert "Bavan vote, round 1" in text
    assert "Deciding: Bavan or stop" in text
    assert "Deadline 12:00:30 (18 seconds left)" in text
    assert 'data-refresh-seconds="2"' in html
    assert "live_refresh.js" in html
    assert [row.cells[:3] for row in table_rows(html, "votes")] == [
        ["0", "Amir", "not yet"],
        ["2", "Cyrus", "not yet"],
    ]
    assert [row.cells[3] for row in table_rows(html, "rounds")] == ["Bavan vote"]


def test_the_page_follows_the_votes(api, client, cast, voting):
    vote(api, cast[0], voting, "bavan")
    html = page(client, f"/ru/matches/{voting}/").content
    assert [row.cells[2] for row in table_rows(html, "votes")] == ["Бавян!", "пока нет"]

    vote(api, cast[2], voting, "stop")
    html = page(client, f"/ru/matches/{voting}/").content.decode()
    assert "Отказ: засчитывается корт" in text_of(html)
    assert "data-refresh-seconds" not in html
    assert [row.cells[2] for row in table_rows(html, "votes")] == ["Бавян!", "Остановиться"]
    assert [row.cells[3] for row in table_rows(html, "rounds")] == ["Корт"]


def test_a_vote_that_goes_plays_to_13(api, client, cast, voting):
    vote(api, cast[0], voting, "bavan")
    vote(api, cast[2], voting, "bavan")
    html = page(client, f"/en/matches/{voting}/").content
    assert "BAVAN! Playing to 13:0" in text_of(html)
    first = table_rows(html, "rounds")[0]
    assert first.cells == ["1", "seat 0, Amir", "7:0", "Playing to 13:0", "—", "—", "—"]


def test_reading_the_page_settles_the_deadline_as_the_api_read_does(api, client, voting, clock):
    clock.move_to(OPENED + timedelta(seconds=31))  # both silent: refused, the Kort counts
    text = text_of(page(client, f"/en/matches/{voting}/").content)
    assert "No Bavan: the Kort counts" in text
    assert "Wins A 5 : 0 B" in text
    assert api.get(f"/api/v1/matches/{voting}/rounds/1/vote/").data["status"] == "refused"


@pytest.mark.parametrize(
    ("cast_votes", "seconds", "shown", "status"),
    [
        ([(0, "bavan")], 31, ["Bavan!", "Silent: counted as agreement"], "go"),
        ([], 31, ["Silent: counted as a stop", "Silent: counted as a stop"], "refused"),
        ([(2, "stop")], 5, ["No vote needed: a stop decided", "Stop"], "refused"),
    ],
)
def test_a_decided_vote_shows_how_the_rules_settled_each_seat(
    api, client, cast, voting, clock, cast_votes, seconds, shown, status
):
    for seat, choice in cast_votes:
        vote(api, cast[seat], voting, choice)
    clock.move_to(OPENED + timedelta(seconds=seconds))
    html = page(client, f"/en/matches/{voting}/").content
    assert [row.cells[2] for row in table_rows(html, "votes")] == shown
    assert api.get(f"/api/v1/matches/{voting}/rounds/1/vote/").data["status"] == status


def test_a_round_with_its_play_record_shows_its_trump_suit(client, service, cast):
    record = bot_record(0, 7, 3)
    match_id = match_start(service, ids_of(cast), mode="room")
    rounds_report(service, match_id, [played(0, record)])
    sign = card_shown("A" + record["trump_suit"])[1:]
    for lang in ("en", "ru"):
        rounds = table_rows(page(client, f"/{lang}/matches/{match_id}/").content, "rounds")
        assert rounds[0].cells[-1] == sign


def test_the_shown_hands_are_the_apis(api, client, service, cast, clock):
    """A vote opened with the record of its first 7 tricks shows the 7:0 team's hands."""
    record = bot_record(0, 13, 0)
    declared = [d for d in record["declarations"] if d["before_trick"] <= 7]
    opening = {**record, "tricks": record["tricks"][:7], "declarations": declared}
    match_id = match_start(service, ids_of(cast), mode="room")
    rounds_report(service, match_id, [played(0, opening, bavan="vote")])
    shown = api.get(f"/api/v1/matches/{match_id}/rounds/1/vote/").data["revealed_hands"]

    html = page(client, f"/en/matches/{match_id}/").content
    assert [row.cells[3] for row in table_rows(html, "votes")] == [
        " ".join(card_shown(card) for card in shown[seat]) for seat in ("0", "2")
    ]


@pytest.mark.parametrize(
    ("card", "shown"),
    [("10H", "10\u2665"), ("AS", "A\u2660"), ("QD", "Q\u2666"), ("2C", "2\u2663")],
)
def test_cards_are_shown_with_their_suits_sign(card, shown):
    assert card_shown(card) == shown


def test_a_bot_votes_for_a_seat_whose_player_left(api, client, service, cast, voting, clock):
    assert service.post(f"/api/v1/matches/{voting}/seats/2/leave/").status_code == 200
    clock.move_to(OPENED + timedelta(seconds=3))
    html = page(client, f"/en/matches/{voting}/").content
    assert table_rows(html, "votes")[1].cells[2] == "Bavan! (bot)"
    assert "left; a bot plays for the seat" in text_of(html)


@pytest.mark.parametrize("rounds", [1, 5])
def test_the_page_costs_the_same_queries_however_many_rounds(
    client, service, cast, django_assert_num_queries, rounds
):
    room = match_start(service, ids_of(cast), mode="room")
    rounds_report(service, room, [round_body(0, 7, 1)] * rounds)
    # the match, its seats, its rounds (with their votes' ids: none here, so no vote is read),
    # the players' names (and no cups: a room match gives none)
    with django_assert_num_queries(4):
        page(client, f"/en/matches/{room}/")


def test_bots_are_marked(client, service, cast):
    bot = player_create(username="rook", display_name="Rook", is_bot=True)
    match_id = match_start(service, [cast[0].id, bot.id, cast[2].id, cast[3].id])
    assert table_rows(page(client, f"/en/matches/{match_id}/").content, "seats")[1].cells[2] == (
        "Rook · bot"
    )


def test_an_unknown_match_is_a_404(client):
    assert client.get("/ru/matches/999/").status_code == 404


@pytest.mark.parametrize(("lang", "label"), [("en", "Void"), ("ru", "Аннулирован")])
def test_a_voided_match_reads_as_void_and_shows_the_cups_it_gave(
    api, client, service, cast, lang, label
):
    """KORT_RULES §11: a voided match stays in the histories, marked void, and still shows
    the cups it gave (the API's ``cups``), not the void's rows that took them back."""
    match_id = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    match_void(match_id, "a cheater at the table")
    given = match_read(api, match_id)["cups"]
    taken_back = {}
    for player in cast:
        for entry in player_read(api, player.id, "cups/")["results"]:
            if entry["kind"] == "void" and entry["match"] == match_id:
                taken_back[str(player.id)] = entry["delta"]

    response = client.get(f"/{lang}/matches/{match_id}/")

    assert response.status_code == 200
    assert label in response.content.decode()
    shown = [row.cells[3].replace("\u2212", "-") for row in table_rows(response.content, "seats")]
    assert given == {str(p.id): cups for p, cups in zip(cast, (10, -5, 10, -5), strict=True)}
    assert taken_back == {player_id: -cups for player_id, cups in given.items()}
    assert shown == [f"{given[str(p.id)]:+d}" for p in cast]

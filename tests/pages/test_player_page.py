"""A player's "My games" page (API.md "Players' pages": ``/{lang}/players/{id}/``): the
KORT_RULES §8 figures of the API's statistics, the cups chart from the ledger (§7), and the
history of ``/players/{id}/matches/`` with its filters."""

import re
from dataclasses import dataclass
from html import unescape
from urllib.parse import parse_qs

import pytest

from pages import views
from tests.api_steps import ids_of, player_read, round_body
from tests.api_steps import match_play as match_play_from
from tests.pages.html import json_script, table_rows, text_of

pytestmark = pytest.mark.django_db

BAVAN_MADE = [round_body(0, 13, 0, "go")]  # team A +10 wins: the ranked match is over
BAVAN_FAILED = [round_body(0, 9, 1, "go")]  # team A fails, team B +5 wins
KORT = [round_body(0, 7, 0, "stop")]  # team A +5
AT_KORT = [round_body(1, 7, 0, "stop")]  # the defenders, team A, +7
ROOM_B_WINS = [round_body(0, 9, 1, "go"), round_body(1, 9, 1, "go")]  # B +5 twice: 10 of 7


def match_play(service, seats, rounds, *, mode="ranked") -> int:
    """A match whose first round is called by the seat it names."""
    first = rounds[0]["trump_seat"]
    return match_play_from(service, seats, rounds, mode=mode, first_trump_seat=first)


@pytest.fixture
def bavan_matches(service, cast):
    """A ranked match in which team A (Amir, Cyrus) made a Bavan, and one in which it failed."""
    seats = ids_of(cast)
    return [match_play(service, seats, BAVAN_MADE), match_play(service, seats, BAVAN_FAILED)]


def page_text(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200
    return text_of(response.content)


def outcome_rows(client, path: str) -> list[list[str]]:
    return [row.cells for row in table_rows(client.get(path).content, "outcomes")]


def test_the_bavan_line_in_english_and_russian(client, cast, bavan_matches):
    amir = cast[0].id
    assert "Bavan called 2 times, made 1" in page_text(client, f"/en/players/{amir}/")
    assert "Бавян объявляли 2 раза, удачно 1" in page_text(client, f"/ru/players/{amir}/")


@pytest.mark.parametrize("seat", [0, 1])
def test_the_figures_are_the_apis_statistics(api, client, service, cast, bavan_matches, seat):
    match_play(service, ids_of(cast), KORT)
    match_play(service, ids_of(cast), AT_KORT)
    player = cast[seat]
    stats = player_read(api, player.id, "stats/")

    labels = ["Kort", "At-kort", "Bavan", "At-bavan", "Failed Bavan"]
    expected = [
        [label, str(stats["outcomes"][name]["team"]), str(stats["outcomes"][name]["opponents"])]
        for label, name in zip(
            labels, ["kort", "at_kort", "bavan", "at_bavan", "bavan_failed"], strict=True
        )
    ]
    assert outcome_rows(client, f"/en/players/{player.id}/") == expected
    text = page_text(client, f"/en/players/{player.id}/")
    for label, name in [
        ("Matches played", "matches_played"),
        ("Matches won", "matches_won"),
        ("Matches lost", "matches_lost"),
        ("Rounds played", "rounds_played"),
        ("Rounds won", "rounds_won"),
        ("Cups now", "cups"),
        ("Best", "best_cups"),
    ]:
        assert f"{label} {stats[name]}".replace("-", "\u2212") in text  # the minus sign
    ru_labels = [row[0] for row in outcome_rows(client, f"/ru/players/{player.id}/")]
    assert ru_labels == ["Корт", "Ат-корт", "Бавян", "Ат-бавян", "Провал бавяна"]


def test_the_chart_draws_the_ledger(api, client, service, cast):
    seats = ids_of(cast)
    for rounds in (KORT, BAVAN_FAILED, AT_KORT):
        match_play(service, seats, rounds)
    match_play(service, seats, KORT, mode="room")  # no cups: not on the chart
    amir = cast[0].id

    response = client.get(f"/ru/players/{amir}/")
    chart = json_script(response.content, "cups-data")
    assert [point["y"] for point in chart["points"]] == [10, 5, 17]  # +10, -5, +12 (§7)
    assert chart["label"] == "Кубки"
    times = [point["x"] for point in chart["points"]]
    assert times == sorted(times)  # on a time axis, oldest first
    ledger = [row.cells[2:] for row in table_rows(response.content, "ledger")]
    assert ledger == [["+12", "17"], ["\u22125", "5"], ["+10", "10"]]  # newest first
    text = text_of(response.content)  # without JavaScript, the chart in words
    assert "От 10 кубков" in text
    assert "до 17 кубков" in text
    assert "наибольшее: 17" in text
    assert "Для графика нужен JavaScript" in text
    assert player_read(api, amir)["cups"] == 17


def test_a_player_without_cups_has_no_chart(client, cast):
    response = client.get(f"/en/players/{cast[0].id}/")
    assert "No cups yet" in text_of(response.content)
    assert b"chart.umd.min.js" not in response.content


def history_links(client, path: str) -> list[str]:
    return [row.links[0] for row in table_rows(client.get(path).content, "history")]


def api_history(api, player_id: int, query: str) -> list[str]:
    body = api.get(f"/api/v1/players/{player_id}/matches/?{query}").data
    return [f"/en/matches/{match['id']}/" for match in body["results"]]


@pytest.mark.parametrize(
    "query", ["", "mode=ranked", "mode=room", "result=won", "result=lost", "mode=room&result=won"]
)
def test_the_history_filters_are_the_apis(api, client, service, cast, query):
    seats = ids_of(cast)
    for rounds, mode in ((KORT, "ranked"), (BAVAN_FAILED, "ranked"), (KORT, "room")):
        match_play(service, seats, rounds, mode=mode)
    match_play(service, seats, ROOM_B_WINS, mode="room")
    bita = cast[1].id

    assert history_links(client, f"/en/players/{bita}/?{query}") == api_history(api, bita, query)


def test_the_history_row_reads_from_the_players_side(client, service, cast):
    match_id = match_play(service, ids_of(cast), KORT)
    bita = cast[1]

    (row,) = table_rows(client.get(f"/en/players/{bita.id}/").content, "history")
    assert row.links[0] == f"/en/matches/{match_id}/"
    assert row.cells[1:] == ["Ranked", "Dara", "Amir, Cyrus", "0:5", "Lost", "\u22125"]
    assert row.links[1:] == [f"/en/players/{cast[n].id}/" for n in (3, 0, 2)]


PAGE_LINK = re.compile(r'<a href="(\?[^"]*)" rel="(prev|next)">([^<]*)</a>')


def page_links(html: str) -> dict[str, tuple[str, str]]:
    """The history's links to other pages by ``rel`` (``prev``: newer, ``next``: older): the
    query string each links to and its text."""
    return {rel: (unescape(href), text) for href, rel, text in PAGE_LINK.findall(html)}


@dataclass(frozen=True)
class WalkedPage:
    query: str
    matches: list[str]
    links: dict[str, tuple[str, str]]


def history_walk(client, path: str, query: str, rel: str) -> list[WalkedPage]:
    """The history pages from ``path + query`` on, following each page's ``rel`` link to the
    end."""
    pages: list[WalkedPage] = []
    while True:
        response = client.get(f"{path}{query}")
        assert response.status_code == 200
        html = response.content.decode()
        links = page_links(html)
        pages.append(
            WalkedPage(query, [row.links[0] for row in table_rows(html, "history")], links)
        )
        if rel not in links:
            return pages
        query = links[rel][0]


def test_the_history_pages_older_and_newer_keeping_its_filters(client, service, cast, monkeypatch):
    monkeypatch.setattr(views, "HISTORY_PAGE_SIZE", 2)
    seats = ids_of(cast)
    ranked = []
    for n in range(7):
        ranked.append(match_play(service, seats, KORT))
        if n % 3 == 0:
            match_play(service, seats, KORT, mode="room")  # left out by the filter
    path = f"/en/players/{cast[0].id}/"

    older = history_walk(client, path, "?mode=ranked", "next")
    assert [len(page.matches) for page in older] == [2, 2, 2, 1]
    # every ranked match once, newest first, across the pages
    assert [m for page in older for m in page.matches] == [
        f"/en/matches/{m}/" for m in ranked[::-1]
    ]
    assert older[-1].links.keys() == {"prev"}
    for page in older:
        for query, _ in page.links.values():
            assert parse_qs(query[1:]).keys() == {"mode", "cursor"}
            assert parse_qs(query[1:])["mode"] == ["ranked"]
        texts = {rel: text for rel, (_, text) in page.links.items()}
        assert texts.items() <= {"prev": "Newer", "next": "Older"}.items()

    newer = history_walk(client, path, older[-1].query, "prev")
    assert [page.matches for page in newer] == [page.matches for page in older[::-1]]
    assert newer[-1].links.keys() == older[0].links.keys() == {"next"}

    russian = page_links(client.get(f"/ru/players/{cast[0].id}/{older[1].query}").content.decode())
    assert {rel: text for rel, (_, text) in russian.items()} == {
        "prev": "Более новые",
        "next": "Более старые",
    }
    # a cursor that is none: the newest matches, as without one (the API's 400)
    for cursor in ("not-a-cursor", "cD1hYmM=", ""):
        first = history_walk(client, path, f"?mode=ranked&cursor={cursor}", "next")[0]
        assert (first.matches, first.links.keys()) == (older[0].matches, {"next"}), cursor
    title = client.get(f"{path}?cursor=not-a-cursor").content.decode().split("</title>")[0]
    assert (
        "older matches" not in title
        and "older matches"
        in client.get(f"{path}{older[1].query}").content.decode().split("</title>")[0]
    )


def test_a_filter_that_is_no_choice_is_named_and_left_out(client, service, cast):
    match_play(service, ids_of(cast), KORT)
    response = client.get(f"/en/players/{cast[0].id}/?result=drawn")
    assert response.status_code == 200
    assert "Select a valid choice" in text_of(response.content)
    assert len(table_rows(response.content, "history")) == 1


@pytest.mark.parametrize("matches", [1, 6])
def test_the_page_costs_the_same_queries_however_many_matches(
    client, service, cast, django_assert_num_queries, monkeypatch, matches
):
    monkeypatch.setattr(views, "HISTORY_PAGE_SIZE", 2)
    for _ in range(matches):
        match_play(service, ids_of(cast), KORT)
    path = f"/en/players/{cast[0].id}/"
    oldest = history_walk(client, path, "", "next")[-1].query
    # player, stats and streaks, the page (no count of the history), its seats and cup changes
    # (not its rounds, which the page does not show), the names of the players shown, the rank
    # (the current season, the board's counts and the ties ahead), the seasons' names, the
    # figures of each mode (stats.selectors.player_stats: 3 each), the partners and the
    # opponents (one each), the ledger, and the season history (ranking.selectors
    # .player_seasons: the standings, the season statistics, the current season and the rank
    # in it again)
    for query in ("", oldest):  # the newest page and the oldest one
        with django_assert_num_queries(26):
            client.get(f"{path}{query}")


def test_the_page_shows_no_private_data(api, client, service, cast, bavan_matches):
    token = service.post(f"/api/v1/players/{cast[0].id}/token/").data["token"]
    html = client.get(f"/en/players/{cast[0].id}/").content.decode()
    assert token not in html
    assert cast[0].user.username not in html  # the login behind the player


def test_an_unknown_player_is_a_404(client):
    assert client.get("/en/players/999/").status_code == 404

"""The leaderboard page (API.md "Players' pages": ``/{lang}/``): the API's board, its order
and ranks (API.md "Leaderboard", KORT_RULES §10), paginated, with a search by username."""

import pytest

from pages.views import LEADERBOARD_PAGE_SIZE
from players.models import Player
from players.services import player_create
from tests.pages.html import number, table_rows, text_of
from tests.pages.ladder import board_players

pytestmark = pytest.mark.django_db


def page_rows(client, path: str) -> list[tuple[int, str, int]]:
    """(rank, player link, cups) of each row of the board on a page."""
    response = client.get(path)
    assert response.status_code == 200
    return [
        (number(row.cells[0]), row.links[0], number(row.cells[2]))
        for row in table_rows(response.content, "board")
    ]


def api_rows(api, lang: str, offset: int) -> list[tuple[int, str, int]]:
    body = api.get(f"/api/v1/leaderboard/?limit={LEADERBOARD_PAGE_SIZE}&offset={offset}").data
    return [
        (row["rank"], f"/{lang}/players/{row['player']['id']}/", row["cups"])
        for row in body["results"]
    ]


def test_the_russian_board_lists_the_api_players_in_its_order_and_ranks(api, client):
    board_players(120)
    Player.objects.bulk_create(
        [
            Player(username="banned", is_banned=True, cups=99, best_cups=99),
            Player(username="robot", is_bot=True, cups=98, best_cups=98),
        ]
    )
    player_create(username="newcomer")  # no finished ranked match: not on the board

    for page, offset in ((1, 0), (2, 50), (3, 100)):
        rows = page_rows(client, f"/ru/?page={page}")
        assert rows == api_rows(api, "ru", offset)
    assert [rank for rank, _, _ in page_rows(client, "/ru/?page=3")] == list(range(101, 121))


def test_pages_link_to_each_other_and_an_unknown_page_is_a_404(client):
    """A page past the last is a 404; a ``page`` that is no page number shows the first."""
    board_players(LEADERBOARD_PAGE_SIZE + 1)

    first = client.get("/en/").content.decode()
    assert 'href="?page=2" rel="next"' in first
    assert "51 players on the leaderboard" in text_of(first)
    assert 'href="?page=1" rel="prev"' in client.get("/en/?page=2").content.decode()
    assert client.get("/en/?page=3").status_code == 404
    for page in ("0", "-1", "two", "abc"):
        assert page_rows(client, f"/en/?page={page}") == page_rows(client, "/en/"), page


def test_an_empty_board_says_so(client):
    response = client.get("/en/")
    assert response.status_code == 200
    assert "Nobody is on the leaderboard yet" in text_of(response.content)


def test_a_search_by_username_opens_the_page_with_the_players_row(client):
    board_players(120)
    ranked = list(Player.objects.order_by("-cups", "cups_changed_at", "id"))
    wanted = ranked[77]  # rank 78, on page 2

    response = client.get(f"/en/?q={wanted.username.upper()}")
    rows = table_rows(response.content, "board")
    assert rows[0].cells[0] == "51"
    found = [row for row in rows if row.attrs.get("class") == "found"]
    assert [row.links[0] for row in found] == [f"/en/players/{wanted.id}/"]
    assert f"{wanted.display_name} is number 78 on the leaderboard" in text_of(response.content)


def test_a_search_ignores_case_in_every_script(client):
    ivan, strasse = board_players(2, prefix="x")
    Player.objects.filter(pk=ivan.pk).update(username="Иван", username_key="иван")
    Player.objects.filter(pk=strasse.pk).update(username="Straße", username_key="strasse")

    for text, wanted in (("иВАН", ivan), ("STRASSE", strasse)):
        found = table_rows(client.get(f"/en/?q={text}").content, "board")
        marked = [row.links[0] for row in found if row.attrs.get("class") == "found"]
        assert marked == [f"/en/players/{wanted.id}/"], text
    # A prefix that one player's name begins with finds that player's row.
    found = table_rows(client.get("/en/?q=ИВ").content, "board")
    assert [row.links[0] for row in found if row.attrs.get("class") == "found"] == [
        f"/en/players/{ivan.id}/"
    ]


def test_a_search_for_a_player_off_the_board_says_why(client):
    board_players(3)
    newcomer = player_create(username="newcomer", display_name="Newcomer")

    text = text_of(client.get("/ru/?q=newcomer").content)
    assert "Newcomer нет в таблице лидеров." in text
    assert "Сезон 1: ещё нет завершённого рейтингового матча." in text
    assert f'href="/ru/players/{newcomer.id}/"' in client.get("/ru/?q=newcomer").content.decode()


def test_a_search_for_the_start_of_a_name_suggests_up_to_ten_players(client):
    board_players(12)
    by_username = Player.objects.order_by("username_key", "id")

    response = client.get("/en/?q=P")
    assert "Players whose username or display name begins with “P”:" in text_of(response.content)
    html = response.content.decode()
    suggested = [player for player in by_username if f'href="?q={player.username}"' in html]
    assert suggested == list(by_username[:10])
    assert html.index(f"?q={by_username[0].username}") < html.index(f"?q={by_username[9].username}")
    assert "No username or display name begins with “zz”." in text_of(
        client.get("/en/?q=zz").content
    )


@pytest.mark.parametrize("players", [3, 120])
def test_the_board_costs_five_queries_however_long(client, django_assert_num_queries, players):
    board_players(players)
    # The current season (its name, and the board it names), the board's total for the page
    # numbers, then the API's page read: the total, the counts per cups value, the rows
    # (ranking.selectors.board_page).
    with django_assert_num_queries(5):
        client.get("/en/")

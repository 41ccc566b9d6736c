"""A season's standings page (API.md "Players' pages": ``/{lang}/seasons/{number}/``) and the
season history of "My games": the rows and ranks of the API's ``/seasons/{n}/leaderboard/``
and ``/players/{id}/seasons/`` (KORT_RULES §10), before and after a season's end."""

import pytest

from pages.views import LEADERBOARD_PAGE_SIZE
from tests.api_steps import match_play
from tests.pages.html import number, table_rows, text_of
from tests.pages.ladder import board_players, season_stats
from tests.ranking.season_steps import SEASONS, THREE_ONE, season_end, season_one_play

pytestmark = pytest.mark.django_db

Row = tuple[int, str, int, int, int]


@pytest.fixture
def ladder(service) -> dict[str, int]:
    return season_one_play(service)


def page_rows(client, path: str) -> list[Row]:
    """(rank, player link, cups, best cups, matches) of each row of a season's standings."""
    response = client.get(path)
    assert response.status_code == 200
    rows = table_rows(response.content, "season-board")
    return [
        (number(r.cells[0]), r.links[0], number(r.cells[2]), number(r.cells[3]), number(r.cells[4]))
        for r in rows
    ]


def api_rows(api, lang: str, number: int, offset: int = 0) -> list[Row]:
    path = f"{SEASONS}{number}/leaderboard/?limit={LEADERBOARD_PAGE_SIZE}&offset={offset}"
    return [
        (
            row["rank"],
            f"/{lang}/players/{row['player']['id']}/",
            row["cups"],
            row["best_cups"],
            row["matches_played"],
        )
        for row in api.get(path).data["results"]
    ]


@pytest.mark.parametrize(
    ("lang", "status"), [("en", "Under way"), ("ru", "Идёт"), ("en", None), ("ru", None)]
)
def test_the_current_season_is_the_apis_live_board(api, client, ladder, lang, status):
    path = f"/{lang}/seasons/1/"
    rows = page_rows(client, path)

    assert rows == api_rows(api, lang, 1)
    assert [rank for rank, *_ in rows] == list(range(1, 10))
    if status is not None:
        assert status in text_of(client.get(path).content)


@pytest.mark.parametrize(
    ("lang", "over", "empty"),
    [
        ("en", "Over: the final standings", "Nobody is in this season's standings"),
        ("ru", "Завершён: итоговая таблица", "В таблице сезона пока никого нет"),  # noqa: RUF001
    ],
)
def test_a_finalized_season_shows_its_frozen_standings(api, client, ladder, lang, over, empty):
    season_end()

    rows = page_rows(client, f"/{lang}/seasons/1/")
    assert rows == api_rows(api, lang, 1)
    assert len(rows) == 9
    assert over in text_of(client.get(f"/{lang}/seasons/1/").content)
    assert empty in text_of(client.get(f"/{lang}/seasons/2/").content)


def test_the_leaderboard_links_to_the_current_season(client, ladder):
    season_end()

    html = client.get("/ru/").content.decode()
    assert '<a href="/ru/seasons/2/">Сезон 2</a>' in html  # the season's name translated


def test_the_standings_pages_and_the_404s(api, client):
    players = board_players(LEADERBOARD_PAGE_SIZE + 1)
    season_stats(players)

    second = page_rows(client, "/en/seasons/1/?page=2")
    assert second == api_rows(api, "en", 1, LEADERBOARD_PAGE_SIZE)
    assert [rank for rank, *_ in second] == [LEADERBOARD_PAGE_SIZE + 1]
    assert "51 players in the standings" in text_of(client.get("/en/seasons/1/").content)
    for path in ("/en/seasons/2/", "/ru/seasons/99/", "/en/seasons/1/?page=3"):
        assert client.get(path).status_code == 404, path
    first = page_rows(client, "/en/seasons/1/")
    for page in ("0", "-1", "two", "abc"):  # no page number: the first page, as the API's 400
        assert page_rows(client, f"/en/seasons/1/?page={page}") == first, page


@pytest.mark.parametrize("players", [3, 120])
def test_the_season_page_costs_the_same_queries_however_long(
    client, django_assert_num_queries, players
):
    season_stats(board_players(players))
    # The season, then the live board's page (ranking.selectors.season_board: the board's
    # total, the counts per cups value, the rows) and its rows' season statistics.
    with django_assert_num_queries(5):
        assert client.get("/en/seasons/1/").status_code == 200


def history_rows(client, path: str) -> list[list[str]]:
    response = client.get(path)
    assert response.status_code == 200
    return [[*row.links, *row.cells] for row in table_rows(response.content, "seasons")]


SEASON_WORD = {"en": "Season", "ru": "Сезон"}  # the season names are translated


def shown(value: int) -> str:
    """A whole number as the pages write it: a negative one with U+2212 MINUS SIGN."""
    return str(value).replace("-", "\u2212")


@pytest.mark.parametrize(("lang", "heading"), [("en", "Season history"), ("ru", "История сезонов")])
def test_the_season_history_is_the_apis(api, client, service, ladder, lang, heading):
    season_end()
    seats = [ladder[name] for name in ("amir", "hamid", "elham", "iman")]
    match_play(service, seats, THREE_ONE)  # season 2
    for name in ("amir", "hamid", "jaleh"):
        player_id = ladder[name]
        path = f"/{lang}/players/{player_id}/"
        seasons = api.get(f"/api/v1/players/{player_id}/seasons/").data["results"]
        expected = [
            [
                f"/{lang}/seasons/{row['season']}/",
                f"{SEASON_WORD[lang]} {row['season']}",
                "—" if row["rank"] is None else str(row["rank"]),
                *(
                    shown(row[key])
                    for key in ("cups", "best_cups", "matches_played", "matches_won")
                ),
            ]
            for row in seasons
        ]
        assert history_rows(client, path) == expected, name
        assert heading in text_of(client.get(path).content)
    assert [row[0] for row in history_rows(client, f"/en/players/{ladder['amir']}/")] == [
        "/en/seasons/2/",
        "/en/seasons/1/",
    ]

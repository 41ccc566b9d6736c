"""The counted leaderboard through the API (API.md "Leaderboard", "Players"): pages of at most
100 rows at any offset with their count, 400 for an offset or limit that is not a
non-negative integer, and the players list paged by cursor with every rank in a fixed number
of queries."""

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ranking.board import board_build
from ranking.models import BoardTotal
from tests.api_steps import PLAYERS
from tests.ranking.ladders import SEASON, brute_board, brute_ranks, ladder_insert

LEADERBOARD = "/api/v1/leaderboard/"


@pytest.fixture
def big_ladder(db):
    """130 players on the board with heavy ties, 10 off it, counted."""
    rng = random.Random(11)
    kinds = ["board"] * 130 + ["banned", "bot", "no board"] * 3 + ["other season"]
    rng.shuffle(kinds)
    ladder_insert([(rng.randint(-4, 4), rng.randint(0, 3), kind) for kind in kinds])
    board_build(SEASON)


def rows_of(body) -> list[tuple[int, int, int]]:
    return [(row["rank"], row["player"]["id"], row["cups"]) for row in body["results"]]


def brute(offset, limit) -> list[tuple[int, int, int]]:
    board = brute_board()[offset : offset + limit]
    return [(offset + i + 1, p.pk, p.cups) for i, p in enumerate(board)]


@pytest.mark.parametrize(
    ("params", "offset", "size"),
    [
        pytest.param({}, 0, 100, id="default-100"),
        pytest.param({"limit": 500}, 0, 100, id="limit-cut-to-100"),
        pytest.param({"limit": 0}, 0, 100, id="limit-0-default"),
        pytest.param({"limit": 7, "offset": 61}, 61, 7, id="deep-in-ties"),
        pytest.param({"limit": 50, "offset": 100}, 100, 30, id="last-page"),
        pytest.param({"offset": 130}, 130, 0, id="past-the-end"),
    ],
)
def test_leaderboard_pages_at_any_offset(api, big_ladder, params, offset, size):
    body = api.get(LEADERBOARD, params).data

    assert body["count"] == 130
    assert len(body["results"]) == size
    assert rows_of(body) == brute(offset, size)


def test_leaderboard_pages_walk_the_whole_board(api, big_ladder):
    rows, url = [], f"{LEADERBOARD}?limit=30"
    while url:
        body = api.get(url).data
        rows += rows_of(body)
        url = body["next"]
    assert rows == brute(0, 130)
    assert api.get(LEADERBOARD, {"limit": 30, "offset": 30}).data["previous"].endswith("?limit=30")


@pytest.mark.parametrize("name", ["limit", "offset"])
@pytest.mark.parametrize("value", ["x", "-1", "1.5", "", "²"])
def test_leaderboard_refuses_an_offset_or_limit_that_is_no_count(api, big_ladder, name, value):
    response = api.get(LEADERBOARD, {name: value})

    assert response.status_code == 400
    assert "non-negative integer" in str(response.data[name])


def test_players_are_paged_by_cursor_with_their_ranks(api, big_ladder):
    ranks = brute_ranks()
    seen, url = [], PLAYERS
    while url:
        body = api.get(url).data
        assert "count" not in body
        seen += [(player["id"], player["rank"]) for player in body["results"]]
        url = body["next"]

    assert seen == sorted(ranks.items())
    last = api.get(f"{PLAYERS}?cursor={_cursor_of_page(api, 3)}").data
    back = api.get(last["previous"]).data
    assert [p["id"] for p in back["results"]] == [pid for pid, _ in seen[50:100]]


def _cursor_of_page(api, number: int) -> str:
    url = PLAYERS
    for _ in range(number - 1):
        url = api.get(url).data["next"]
    return url.split("cursor=")[1]


def test_a_page_of_players_costs_the_same_queries_as_one_player(api, big_ladder):
    def queries(path) -> list[str]:
        with CaptureQueriesContext(connection) as captured:
            assert api.get(path).status_code == 200
        return [query["sql"] for query in captured.captured_queries]

    one = queries(f"{PLAYERS}?search=p139")
    page = queries(PLAYERS)

    assert len(page) == len(one) <= 4  # the current season, the players, their ranks
    assert not [sql for sql in page if sql.startswith("SELECT COUNT(*)")]


@pytest.mark.parametrize("counts", ["kept", "lost"])
def test_an_offset_far_past_the_end_is_an_empty_page(api, big_ladder, counts):
    if counts == "lost":
        BoardTotal.objects.all().delete()

    body = api.get(LEADERBOARD, {"offset": "9" * 30}).data

    assert (body["count"], body["results"], body["next"]) == (130, [], None)

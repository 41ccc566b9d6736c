"""The leaderboard through the API (API.md "Leaderboard"): who is on it, its order and ranks,
``limit``, the rows around a player, ``rank`` on a player, and bans."""

import pytest

from players.models import Player
from tests.api_steps import MATCHES, match_play, match_start, player_read, round_body

LEADERBOARD = "/api/v1/leaderboard/"


@pytest.fixture
def ladder(service):
    """Players by name -> id, after:

    1. ranked [p5, p6, p7, bot], A 3:0 by plain wins: p5, p7 +8; p6 -3; the bot nothing;
    2. ranked [p1, p2, p3, p4], the same, finalized later: p1, p3 +8; p2, p4 -3;
    3. room [r1, r2, r3, r4], finalized: no cups, nobody on the board;
    4. ranked [w1, w2, w3, w4], still on: nobody on the board.

    Board: p5, p7 (8, earlier), p1, p3 (8), p6 (-3, earlier), p2, p4 (-3). Within a tie the
    earlier finalization comes first even with a higher id (p5 before p1), then the lower id.
    """
    names = [f"p{n}" for n in range(1, 8)] + [f"{kind}{n}" for kind in "rw" for n in range(1, 5)]
    ids = {
        name: service.post("/api/v1/players/", {"username": f"player.{name}"}).data["id"]
        for name in names
    }
    ids["bot"] = service.post("/api/v1/players/", {"username": "bot", "is_bot": True}).data["id"]
    sweep = [round_body(0, 7, 4)] * 3
    match_play(service, [ids["p5"], ids["p6"], ids["p7"], ids["bot"]], sweep)
    match_play(service, [ids["p1"], ids["p2"], ids["p3"], ids["p4"]], sweep)
    room = [ids[f"r{n}"] for n in range(1, 5)]
    match_play(service, room, [round_body(0, 0, 7, "stop")], mode="room")  # B's At-kort: 7
    match_start(service, [ids[f"w{n}"] for n in range(1, 5)])
    return ids


BOARD = [("p5", 8), ("p7", 8), ("p1", 8), ("p3", 8), ("p6", -3), ("p2", -3), ("p4", -3)]


def rows_of(ladder, board) -> list[tuple]:
    """The expected rows ``(rank, player id, cups)`` of ``board`` [(name, cups)]."""
    return [(rank, ladder[name], cups) for rank, (name, cups) in enumerate(board, start=1)]


def shown(rows) -> list[tuple]:
    return [(row["rank"], row["player"]["id"], row["cups"]) for row in rows]


def test_leaderboard_order_and_ranks(api, ladder):
    response = api.get(LEADERBOARD)

    assert response.status_code == 200
    assert shown(response.data["results"]) == rows_of(ladder, BOARD)


def test_leaderboard_limit_and_next_page(api, ladder):
    first = api.get(LEADERBOARD, {"limit": 3}).data
    second = api.get(first["next"]).data
    third = api.get(second["next"]).data

    assert [row["rank"] for row in first["results"]] == [1, 2, 3]
    assert shown(first["results"] + second["results"] + third["results"]) == rows_of(ladder, BOARD)
    assert third["next"] is None


@pytest.mark.parametrize(
    ("name", "rank"), [(name, rank) for rank, (name, _) in enumerate(BOARD, 1)]
)
def test_rank_on_a_player_agrees_with_the_board(api, ladder, name, rank):
    assert player_read(api, ladder[name])["rank"] == rank


OFF_THE_BOARD = ["bot", "r1", "w1"]  # a bot, room matches only, a ranked match still on


@pytest.mark.parametrize("name", OFF_THE_BOARD)
def test_players_off_the_board_have_no_rank(api, ladder, name):
    assert player_read(api, ladder[name])["rank"] is None
    assert ladder[name] not in [row[1] for row in shown(api.get(LEADERBOARD).data["results"])]


# --- GET /leaderboard/around/{id}/ ------------------------------------------------------------

AROUND = [
    # player, radius (None: the default, 5), ranks shown
    pytest.param("p5", None, [1, 2, 3, 4, 5, 6], id="first-default"),
    pytest.param("p4", None, [2, 3, 4, 5, 6, 7], id="last-default"),
    pytest.param("p6", 1, [4, 5, 6], id="middle-1"),
    pytest.param("p1", 0, [3], id="radius-0"),
    pytest.param("p3", 50, [1, 2, 3, 4, 5, 6, 7], id="radius-50"),
    pytest.param("p7", 2, [1, 2, 3, 4], id="top-edge"),
]


@pytest.mark.parametrize(("name", "radius", "ranks"), AROUND)
def test_rows_around_a_player(api, ladder, name, radius, ranks):
    params = {} if radius is None else {"radius": radius}
    response = api.get(f"{LEADERBOARD}around/{ladder[name]}/", params)

    assert response.status_code == 200, response.data
    expected = [row for row in rows_of(ladder, BOARD) if row[0] in ranks]
    assert shown(response.data["results"]) == expected


@pytest.mark.parametrize("radius", [51, -1, "x"])
def test_around_refuses_a_bad_radius(api, ladder, radius):
    response = api.get(f"{LEADERBOARD}around/{ladder['p1']}/", {"radius": radius})
    assert response.status_code == 400
    assert "radius" in response.data


@pytest.mark.parametrize("name", [*OFF_THE_BOARD, "nobody"])
def test_around_a_player_off_the_board_is_404(api, ladder, name):
    player_id = ladder.get(name, 999_999)
    assert api.get(f"{LEADERBOARD}around/{player_id}/").status_code == 404


# --- bans ---------------------------------------------------------------------------------------


def test_a_banned_player_leaves_the_board_and_cannot_join_a_match(service, api, ladder):
    Player.objects.filter(pk=ladder["p1"]).update(is_banned=True)
    without_p1 = [row for row in BOARD if row[0] != "p1"]

    assert shown(api.get(LEADERBOARD).data["results"]) == rows_of(ladder, without_p1)
    assert player_read(api, ladder["p1"])["rank"] is None
    assert player_read(api, ladder["p3"])["rank"] == 3
    assert api.get(f"{LEADERBOARD}around/{ladder['p1']}/").status_code == 404

    seats = [ladder["p1"], ladder["p2"], ladder["p3"], ladder["p4"]]
    response = service.post(MATCHES, {"mode": "ranked", "seats": seats})
    assert response.status_code == 400
    assert f"player {ladder['p1']} is banned" in str(response.data["seats"])

"""The end of a season through the API, as a client sees it (KORT_RULES §10; API.md "Seasons"):
the frozen final standings, the soft reset in the ledger, the empty new board, a player's
seasons and statistics per season; ``season_end`` and its refusals."""

from datetime import timedelta

import pytest
import time_machine
from django.core.management import CommandError
from django.test import override_settings

from ranking.models import CupChange
from seasons.models import Season
from tests.api_steps import PLAYERS, match_play, match_read, player_read, round_body
from tests.ranking.season_steps import (
    LEADERBOARD,
    SEASON_ONE,
    SEASONS,
    board,
    season_end,
    season_one_play,
)


@pytest.fixture
def ladder(service):
    return season_one_play(service)


def reset_of(cups: int, floor: int) -> int:
    """KORT_RULES §10, written out: kept 0..T, half of what is above T kept, 0 below 0."""
    if cups < 0:
        return 0
    return cups if cups <= floor else floor + (cups - floor) // 2


def test_before_the_end_season_one_is_the_current_board(api, ladder):
    current = api.get(f"{SEASONS}current/").data
    rows = board(api, f"{SEASONS}1/leaderboard/")

    assert (current["number"], current["status"]) == (1, "current")
    assert [row["player"]["username"] for row in rows] == list(SEASON_ONE)
    assert [row["rank"] for row in rows] == list(range(1, 10))
    assert [(r["cups"], r["best_cups"], r["matches_played"]) for r in rows] == [
        (cups, best, played) for cups, best, played, _ in SEASON_ONE.values()
    ]
    assert [(r["rank"], r["player"], r["cups"]) for r in board(api)] == [
        (r["rank"], r["player"], r["cups"]) for r in rows
    ]


def test_the_end_freezes_the_standings(api, ladder):
    output = season_end()

    assert "Season 1 ended now" in output
    rows = board(api, f"{SEASONS}1/leaderboard/")
    expected = [
        (rank, name, cups, best, played)
        for rank, (name, (cups, best, played, _)) in enumerate(SEASON_ONE.items(), start=1)
    ]
    assert [
        (r["rank"], r["player"]["username"], r["cups"], r["best_cups"], r["matches_played"])
        for r in rows
    ] == expected
    season = api.get(f"{SEASONS}1/").data
    assert season["status"] == "finalized"
    assert api.get(SEASONS).data["results"][0]["number"] == 2


@pytest.mark.parametrize("floor", [0, 10])
def test_every_players_cups_are_soft_reset_by_one_ledger_row(api, ladder, floor):
    before = {name: player_read(api, pid)["cups"] for name, pid in ladder.items()}

    with override_settings(KORT_SEASON_RESET_FLOOR=floor):
        season_end()

    for name, player_id in ladder.items():
        after = player_read(api, player_id)["cups"]
        assert after == reset_of(before[name], floor), name
        ledger = api.get(f"{PLAYERS}{player_id}/cups/").data["results"]
        resets = [row for row in ledger if row["kind"] == "season_reset"]
        if after == before[name]:
            assert resets == [], name
            continue
        assert resets == [ledger[0]], name
        assert (resets[0]["delta"], resets[0]["cups_after"]) == (after - before[name], after)
        assert (resets[0]["season"], resets[0]["match"]) == (2, None)


def test_by_hand_with_a_floor_of_10(api, ladder):
    with override_settings(KORT_SEASON_RESET_FLOOR=10):
        season_end()

    cups = {name: player_read(api, pid)["cups"] for name, pid in ladder.items()}
    assert cups == {
        # 10 + (22 - 10) // 2, 10 + 8 // 2, 10 + 4 // 2; 0..10 kept; below 0 to 0
        "elham": 16,
        "farid": 14,
        "amir": 12,
        "cyrus": 10,
        "gita": 8,
        "iman": 6,
        "hamid": 0,
        "bita": 0,
        "dara": 0,
        "jaleh": 0,
        "robo": 0,
    }
    assert CupChange.objects.filter(kind="season_reset").count() == 6


def test_the_new_board_is_empty_until_a_match_is_finalized(service, api, ladder):
    season_end()

    assert board(api) == []
    assert api.get(LEADERBOARD).data["count"] == 0
    assert board(api, f"{SEASONS}2/leaderboard/") == []
    assert player_read(api, ladder["amir"])["rank"] is None
    assert api.get(f"{LEADERBOARD}around/{ladder['amir']}/").status_code == 404

    seats = [ladder[name] for name in ("amir", "bita", "cyrus", "dara")]
    match_id = match_play(service, seats, [round_body(0, 7, 0, "stop")])  # A's Kort: +10 / -5

    assert match_read(api, match_id)["season"] == 2
    # After the reset (T = 0): amir 7, cyrus 5, bita 0, dara 0; then +10 / -5.
    rows = [(r["rank"], r["player"]["username"], r["cups"]) for r in board(api)]
    assert rows == [(1, "amir", 17), (2, "cyrus", 15), (3, "bita", -5), (4, "dara", -5)]
    assert player_read(api, ladder["amir"])["rank"] == 1
    season_rows = board(api, f"{SEASONS}2/leaderboard/")
    assert [(r["cups"], r["best_cups"], r["matches_played"]) for r in season_rows] == [
        (17, 17, 1),
        (15, 15, 1),
        (-5, 0, 1),
        (-5, 0, 1),
    ]


def test_a_seasons_best_counts_from_the_total_it_opened_with(service, api, ladder):
    season_end()  # amir 14 -> 7
    seats = [ladder[name] for name in ("bita", "amir", "dara", "cyrus")]
    match_play(service, seats, [round_body(0, 7, 0, "stop")])  # bita, dara +10; amir -5

    assert player_read(api, ladder["amir"], "stats/?season=2")["best_cups"] == 7
    assert player_read(api, ladder["amir"], "stats/?season=2")["cups"] == 2
    assert player_read(api, ladder["amir"], "stats/")["best_cups"] == 14


def test_a_players_seasons(service, api, ladder):
    season_end()
    amir = ladder["amir"]
    assert player_read(api, amir, "seasons/")["results"] == [
        {
            "season": 1,
            "rank": 3,
            "cups": 14,
            "best_cups": 14,
            "matches_played": 2,
            "matches_won": 2,
        }
    ]
    seats = [amir, ladder["bita"], ladder["cyrus"], ladder["dara"]]
    match_play(service, seats, [round_body(0, 7, 0, "stop")])

    rows = player_read(api, amir, "seasons/")["results"]
    assert [row["season"] for row in rows] == [2, 1]
    assert rows[0] == {
        "season": 2,
        "rank": 1,
        "cups": 17,
        "best_cups": 17,
        "matches_played": 1,
        "matches_won": 1,
    }
    # Room matches only, no seasons: jaleh; a bot: none.
    assert player_read(api, ladder["jaleh"], "seasons/")["results"] == []
    assert player_read(api, ladder["robo"], "seasons/")["results"] == []


def test_statistics_per_season(service, api, ladder):
    season_end()
    amir = ladder["amir"]

    season_one = player_read(api, amir, "stats/?season=1")
    assert (season_one["matches_played"], season_one["matches_won"]) == (3, 2)  # a room match
    assert (season_one["cups"], season_one["best_cups"]) == (14, 14)
    assert season_one["outcomes"]["kort"] == {"team": 1, "opponents": 0}
    assert season_one["outcomes"]["at_kort"] == {"team": 0, "opponents": 1}
    season_two = player_read(api, amir, "stats/?season=2")
    assert season_two["matches_played"] == season_two["cups"] == season_two["best_cups"] == 0
    assert player_read(api, amir, "stats/")["matches_played"] == 3
    assert player_read(api, amir, "stats/")["cups"] == 7


@pytest.mark.parametrize(("season", "status"), [("abc", 400), ("0", 400), ("1.5", 400), ("9", 404)])
def test_statistics_of_a_season_that_is_not_one(api, ladder, season, status):
    response = api.get(f"{PLAYERS}{ladder['amir']}/stats/", {"season": season})
    assert response.status_code == status
    if status == 400:
        assert "season" in response.data


def test_an_empty_season_is_refused_not_read_as_all_time(api, ladder):
    response = api.get(f"{PLAYERS}{ladder['amir']}/stats/?season=")

    assert response.status_code == 400
    assert "valid integer" in str(response.data["season"])


def test_seasons_through_the_api(api, ladder):
    season_end()

    listed = api.get(SEASONS).data["results"]
    assert [(s["number"], s["status"]) for s in listed] == [(2, "current"), (1, "finalized")]
    one, two = api.get(f"{SEASONS}1/").data, api.get(f"{SEASONS}current/").data
    assert two["starts_at"] == one["ends_at"]
    assert set(one) == {"number", "name", "starts_at", "ends_at", "status"}
    assert api.get(f"{SEASONS}3/").status_code == 404
    assert api.get(f"{SEASONS}3/leaderboard/").status_code == 404


@pytest.mark.parametrize("path", [LEADERBOARD, f"{SEASONS}1/leaderboard/"])
@pytest.mark.parametrize(
    "params",
    [{"offset": "-1"}, {"offset": "x"}, {"limit": "-5"}, {"limit": "ten"}, {"limit": "1.5"}],
)
def test_board_pages_refuse_bad_offset_and_limit(api, ladder, path, params):
    response = api.get(path, params)
    assert response.status_code == 400
    assert set(response.data) == set(params)


def test_frozen_standings_are_paged_by_rank(api, ladder):
    season_end()
    first = api.get(f"{SEASONS}1/leaderboard/", {"limit": 4}).data
    deep = api.get(f"{SEASONS}1/leaderboard/", {"limit": 4, "offset": 8}).data

    assert first["count"] == 9
    assert [row["rank"] for row in first["results"]] == [1, 2, 3, 4]
    assert [row["rank"] for row in api.get(first["next"]).data["results"]] == [5, 6, 7, 8]
    assert [row["player"]["username"] for row in deep["results"]] == ["dara"]
    assert deep["next"] is None


# --- season_end: again, refusals, --at -----------------------------------------------------


def test_ending_an_ended_season_again_waits_and_ends_no_other(api, ladder):
    season_end()
    standings = board(api, f"{SEASONS}1/leaderboard/")

    assert "Season 1 was already finalized" in season_end("--season", "1")
    assert api.get(f"{SEASONS}current/").data["number"] == 2
    assert board(api, f"{SEASONS}1/leaderboard/") == standings
    assert CupChange.objects.filter(kind="season_reset").count() == 9


def season_state() -> list:
    return list(Season.objects.order_by("number").values())


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--season", "7"], "season 7 does not exist"),
        (["--at", "2020-01-01T00:00:00Z"], "must be in the future"),
        (["--at", "next friday"], "not an ISO 8601 time"),
        (["--season", "1", "--at", "31/12/2099"], "not an ISO 8601 time"),
    ],
)
def test_a_refusal_exits_non_zero_says_why_and_changes_nothing(ladder, args, why):
    before = season_state()

    with pytest.raises(CommandError, match=why):
        season_end(*args)

    assert season_state() == before


def test_at_moves_the_current_seasons_end(api, ladder):
    output = season_end("--at", "2099-12-31T00:00:00Z")

    assert "now ends at 2099-12-31T00:00:00+00:00" in output
    assert api.get(f"{SEASONS}current/").data["ends_at"] == "2099-12-31T00:00:00Z"
    assert api.get(f"{SEASONS}current/").data["status"] == "current"


def test_at_refuses_a_finalized_season_and_a_season_past_its_end(ladder):
    season_end()
    with pytest.raises(CommandError, match="season 1 is finalized"):
        season_end("--season", "1", "--at", "2099-12-31T00:00:00Z")
    past_its_end = Season.objects.get(number=2).ends_at + timedelta(minutes=1)
    before = season_state()
    with (
        time_machine.travel(past_its_end, tick=False),
        pytest.raises(CommandError, match=r"season 2 ended at .* awaits its finalization"),
    ):
        season_end("--at", "2099-12-31T00:00:00Z")
    assert season_state() == before

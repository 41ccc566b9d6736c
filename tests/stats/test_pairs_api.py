"""Partners, opponents, versus and streaks through the API (KORT_RULES §12; API.md "Players"):
the figures of three matches with the §7 cups, per mode and season, their pages, a void taking
a match back out, and bad input."""

import pytest

from ranking.services import match_void
from seasons.selectors import current_season
from tests.api_steps import PLAYERS, ids_of, match_play, player_read, round_body

KORT = round_body(0, 7, 0, "stop")  # A's Kort: ends a ranked match, A +10, B -5 (§7 table)
B_AT_KORT = round_body(0, 0, 7, "stop")  # B's At-kort: 7 wins, ends a room match


def row(player, matches, won, cups):
    return {
        "player": {"id": player.id, "display_name": player.display_name},
        "matches": matches,
        "won": won,
        "cups": cups,
    }


def streaks(win, loss):
    return {
        "win": dict(zip(("current", "best"), win, strict=True)),
        "loss": dict(zip(("current", "best"), loss, strict=True)),
    }


def table(api, player_id, part, **params):
    response = api.get(f"{PLAYERS}{player_id}/{part}/", params)
    assert response.status_code == 200, response.data
    return response.data


@pytest.fixture
def three_matches(service, cast):
    """Amir with Cyrus (ranked, won by A's Kort: +10), the same seats in a room match won by
    B, then Amir with Dara (ranked, won: +10)."""
    amir, bita, cyrus, dara = cast
    first = match_play(service, ids_of(cast), [KORT])
    room = match_play(service, ids_of(cast), [B_AT_KORT], mode="room")
    third = match_play(service, [amir.id, bita.id, dara.id, cyrus.id], [KORT])
    return first, room, third


def test_partners_and_opponents_count_matches_wins_and_cups(api, cast, three_matches):
    amir, bita, cyrus, dara = cast

    partners = table(api, amir.id, "partners")
    opponents = table(api, amir.id, "opponents")

    # Most matches first, then by id; cups: Amir's +10 twice, 0 for the room match.
    assert partners["results"] == [row(cyrus, 2, 1, 10), row(dara, 1, 1, 10)]
    assert opponents["results"] == [row(bita, 3, 2, 20), row(dara, 2, 1, 10), row(cyrus, 1, 1, 10)]
    assert partners["next"] is None and partners["previous"] is None
    # Bita lost both ranked matches (-5 each) and won the room match.
    assert table(api, bita.id, "opponents")["results"] == [
        row(amir, 3, 1, -10),
        row(cyrus, 2, 1, -5),
        row(dara, 1, 0, -5),
    ]


def test_each_mode_and_season_has_its_own_figures(api, cast, three_matches):
    amir, bita, cyrus, dara = cast
    season = current_season().number

    assert table(api, amir.id, "partners", mode="ranked")["results"] == [
        row(cyrus, 1, 1, 10),
        row(dara, 1, 1, 10),
    ]
    assert table(api, amir.id, "partners", mode="room")["results"] == [row(cyrus, 1, 0, 0)]
    assert table(api, amir.id, "opponents", mode="room", season=season)["results"] == [
        row(bita, 1, 0, 0),
        row(dara, 1, 0, 0),
    ]
    assert table(api, amir.id, "partners", season=season) == table(api, amir.id, "partners")


def test_versus_counts_matches_with_and_against(api, cast, three_matches):
    amir, bita, cyrus, _ = cast

    assert table(api, amir.id, f"versus/{bita.id}") == {
        "with": {"matches": 0, "won": 0},
        "against": {"matches": 3, "won": 2},
    }
    assert table(api, amir.id, f"versus/{cyrus.id}") == {
        "with": {"matches": 2, "won": 1},
        "against": {"matches": 1, "won": 1},
    }
    assert table(api, cyrus.id, f"versus/{amir.id}", mode="ranked") == {
        "with": {"matches": 1, "won": 1},
        "against": {"matches": 1, "won": 0},
    }


def test_streaks_in_the_statistics_per_mode(api, cast, three_matches):
    amir = cast[0]

    # Won, lost (room), won: the current win run is 1, each best 1.
    assert player_read(api, amir.id, "stats/")["streaks"] == streaks((1, 1), (0, 1))
    ranked = table(api, amir.id, "stats", mode="ranked")
    assert ranked["streaks"] == streaks((2, 2), (0, 0))
    assert (ranked["matches_played"], ranked["matches_won"]) == (2, 2)
    room = table(api, amir.id, "stats", mode="room")
    assert room["streaks"] == streaks((0, 0), (1, 1))
    assert (room["matches_played"], room["matches_won"], room["rounds_played"]) == (1, 0, 1)
    assert room["outcomes"]["at_kort"] == {"team": 0, "opponents": 1}


def test_a_void_takes_its_match_out_of_every_figure(api, cast, three_matches):
    amir, bita, cyrus, dara = cast
    third = three_matches[2]

    match_void(third, "a broken table")

    assert table(api, amir.id, "partners")["results"] == [row(cyrus, 2, 1, 10)]
    assert table(api, amir.id, "opponents")["results"] == [row(bita, 2, 1, 10), row(dara, 2, 1, 10)]
    # Won, lost: as if the third match was never played (§12).
    assert player_read(api, amir.id, "stats/")["streaks"] == streaks((0, 1), (1, 1))
    assert table(api, amir.id, "stats", mode="ranked")["streaks"] == streaks((1, 1), (0, 0))
    assert table(api, amir.id, f"versus/{dara.id}")["with"] == {"matches": 0, "won": 0}


def test_a_void_in_the_middle_joins_the_runs_around_it(service, api, cast):
    amir = cast[0]
    seats, swapped = ids_of(cast), [cast[1].id, cast[0].id, cast[3].id, cast[2].id]
    match_play(service, seats, [KORT])  # won
    lost = match_play(service, swapped, [KORT])  # lost: Amir sits in team B
    match_play(service, seats, [KORT])  # won
    assert player_read(api, amir.id, "stats/")["streaks"] == streaks((1, 1), (0, 1))

    match_void(lost, "a cheater at the table")

    assert player_read(api, amir.id, "stats/")["streaks"] == streaks((2, 2), (0, 0))


def test_history_rows_say_void_and_the_result_filters_leave_them_out(api, cast, three_matches):
    amir = cast[0]
    first, room, third = three_matches
    match_void(third, "a broken table")

    history = table(api, amir.id, "matches")["results"]
    won = table(api, amir.id, "matches", result="won")["results"]
    lost = table(api, amir.id, "matches", result="lost")["results"]

    assert [(m["id"], m["status"]) for m in history] == [
        (third, "void"),
        (room, "finalized"),
        (first, "finalized"),
    ]
    assert [m["id"] for m in won] == [first]
    assert [m["id"] for m in lost] == [room]


def test_the_tables_page_by_cursor_both_ways(api, cast, three_matches):
    amir, bita, cyrus, dara = cast

    first = table(api, amir.id, "opponents", page_size=1)
    second = api.get(first["next"]).data
    third = api.get(second["next"]).data
    back = api.get(third["previous"]).data

    assert [page["results"] for page in (first, second, third)] == [
        [row(bita, 3, 2, 20)],
        [row(dara, 2, 1, 10)],
        [row(cyrus, 1, 1, 10)],
    ]
    assert first["previous"] is None and third["next"] is None
    assert back["results"] == second["results"]
    assert api.get(back["previous"]).data["results"] == first["results"]


def test_bots_count_as_partners_and_have_no_figures_of_their_own(service, api, cast):
    bot = service.post(PLAYERS, {"username": "rook", "is_bot": True}).data["id"]
    amir, bita, _, dara = cast
    match_play(service, [amir.id, bita.id, bot, dara.id], [KORT])

    assert [r["player"]["id"] for r in table(api, amir.id, "partners")["results"]] == [bot]
    assert table(api, bot, "partners")["results"] == []
    assert table(api, bot, "stats")["streaks"] == streaks((0, 0), (0, 0))


def test_a_season_below_the_first_is_refused_as_the_season_0(api, cast):
    """``?season=-1`` and ``?season=0`` break the same rule, and are told the same."""
    answers = [
        api.get(f"{PLAYERS}{cast[0].id}/stats/", {"season": number}).data["season"]
        for number in ("0", "-1")
    ]

    assert answers[0] == answers[1]
    assert "greater than or equal to 1" in str(answers[0])


@pytest.mark.parametrize(
    ("part", "params", "field"),
    [
        ("partners", {"mode": "blitz"}, "mode"),
        ("opponents", {"season": "first"}, "season"),
        ("partners", {"season": "0"}, "season"),
        ("partners", {"page_size": "0"}, "page_size"),
        ("stats", {"mode": ""}, "mode"),
        ("versus/{other}", {"mode": "ranked!"}, "mode"),
        ("stats", {"season": "1.0"}, "season"),
        ("partners", {"season": "+1"}, "season"),
        ("stats", {"season": "-1"}, "season"),
        ("versus/{me}", {}, "other"),
        ("partners", {"cursor": "not-a-cursor"}, "cursor"),
        ("opponents", {"cursor": "ZHwxfDA="}, "cursor"),  # d|1|0: no player 0
    ],
)
def test_bad_input_is_a_400_naming_the_field(api, cast, part, params, field):
    path = f"{PLAYERS}{cast[0].id}/{part.format(other=cast[1].id, me=cast[0].id)}/"
    response = api.get(path, params)
    assert response.status_code == 400
    assert field in response.data


@pytest.mark.parametrize(
    "path",
    [
        "{player}/partners/?season=99",
        "999999/opponents/",
        "{player}/versus/999999/",
        "999999/versus/{player}/",
    ],
)
def test_unknown_things_are_404s(api, cast, path):
    response = api.get(f"{PLAYERS}{path.format(player=cast[0].id)}")
    assert response.status_code == 404

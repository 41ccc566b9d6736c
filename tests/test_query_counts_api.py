"""How many data statements the reads and writes of players, statistics, boards, seasons and
Belote score sheets cost, so a later change cannot quietly add an N+1: each is measured with
little data and with more, the two counts must be equal, and neither above today's count.
API.md "Conventions" (player tokens), "Players", "Leaderboard", "Seasons", "Bazar Belote".
Transaction control and the tasks queued on commit are not counted."""

from __future__ import annotations

import pytest

from players.services import player_create, player_token
from tests.api_steps import PLAYERS, korts_won
from tests.belote.examples import EXAMPLE_2
from tests.belote.test_protocols_api import KONTRA_MADE, PROTOCOLS, add_deal, open_sheet
from tests.belote.test_score_api import SCORE
from tests.queries import assert_flat, get_counted, post_counted
from tests.ranking.season_steps import SEASONS, season_end


@pytest.fixture
def amir(cast) -> int:
    return cast[0].id


# Players (API.md "Players", "Conventions")


def test_creating_a_player_costs_the_same_statements_with_0_or_8_players(service):
    _, first = post_counted(service, PLAYERS, {"username": "first"})
    for number in range(7):
        player_create(username=f"other{number}")

    _, ninth = post_counted(service, PLAYERS, {"username": "ninth"})

    assert_flat(first, ninth, at_most=7)


def test_issuing_a_players_token_costs_the_same_statements_with_0_or_7_tokens_issued(service, cast):
    _, first = post_counted(service, f"{PLAYERS}{cast[0].id}/token/")
    for player in cast[1:]:
        player_token(player)
    for number in range(3):
        player_token(player_create(username=f"other{number}"))

    _, eighth = post_counted(service, f"{PLAYERS}{player_create(username='new').id}/token/")

    assert_flat(first, eighth, at_most=4)


def test_the_players_list_costs_the_same_statements_for_5_or_14_players(api, service, cast):
    # The cast's four on the board and one player off it; the ranks are only read when a
    # player of the page is on the board.
    korts_won(service, cast[0].id, 1)
    five = get_counted(api, PLAYERS)
    korts_won(service, cast[0].id, 3)

    fourteen = get_counted(api, PLAYERS)

    assert_flat(five, fourteen, at_most=4)


@pytest.mark.parametrize(
    ("part", "at_most"),
    [
        pytest.param("", 4, id="profile"),
        # The statistics, then their streaks (KORT_RULES §12): one row more each; all time,
        # the current season too, for a soft reset still to be written (stats.totals).
        pytest.param("stats/", 4, id="stats-all-time"),
        pytest.param("stats/?season=1", 4, id="stats-of-season-1"),
        pytest.param("stats/?season=1&mode=ranked", 5, id="stats-of-a-mode-in-season-1"),
        pytest.param("partners/", 2, id="partners"),
        pytest.param("opponents/?mode=room", 2, id="opponents-of-a-mode"),
        # The player, the current season (a reset still to be written is written first), the
        # ledger's length and its page.
        pytest.param("cups/", 4, id="cups-ledger"),
    ],
)
def test_a_players_page_costs_the_same_statements_for_1_or_6_matches(
    api, service, amir, part, at_most
):
    korts_won(service, amir, 1)
    one = get_counted(api, f"{PLAYERS}{amir}/{part}")
    korts_won(service, amir, 5)

    six = get_counted(api, f"{PLAYERS}{amir}/{part}")

    assert_flat(one, six, at_most=at_most)


def test_my_stats_cost_the_same_statements_for_1_or_6_matches(api, service, cast):
    me = api.as_player(player_token(cast[0]).key)
    korts_won(service, cast[0].id, 1)
    one = get_counted(me, f"{PLAYERS}me/stats/")
    korts_won(service, cast[0].id, 5)

    six = get_counted(me, f"{PLAYERS}me/stats/")

    assert_flat(one, six, at_most=4)  # as the statistics of any player, all time


# Leaderboard and seasons (API.md "Leaderboard", "Seasons")


@pytest.mark.parametrize(
    ("path", "at_most"),
    [
        pytest.param("/api/v1/leaderboard/around/{amir}/", 8, id="around-a-player"),
        pytest.param(f"{SEASONS}1/leaderboard/", 5, id="current-season"),
    ],
)
def test_a_board_costs_the_same_statements_for_4_or_19_players(api, service, amir, path, at_most):
    path = path.format(amir=amir)
    korts_won(service, amir, 1)
    four = get_counted(api, path)
    korts_won(service, amir, 5)

    nineteen = get_counted(api, path)

    assert_flat(four, nineteen, at_most=at_most)


def seasons_played(service, player_id: int, ended: int) -> None:
    """A Kort of ``player_id`` in each of ``ended`` seasons that are then ended."""
    for _ in range(ended):
        korts_won(service, player_id, 1)
        season_end()


@pytest.mark.parametrize(
    ("path", "at_most"),
    [
        pytest.param(SEASONS, 2, id="seasons"),
        pytest.param(f"{SEASONS}current/", 1, id="current-season"),
        pytest.param(f"{SEASONS}1/", 1, id="season-1"),
        pytest.param("{PLAYERS}{amir}/seasons/", 7, id="players-seasons"),
    ],
)
def test_a_seasons_read_costs_the_same_statements_for_1_or_3_seasons(
    api, service, amir, path, at_most
):
    path = path.format(PLAYERS=PLAYERS, amir=amir)
    korts_won(service, amir, 1)
    one = get_counted(api, path)
    season_end()
    seasons_played(service, amir, 1)
    korts_won(service, amir, 1)

    three = get_counted(api, path)

    assert_flat(one, three, at_most=at_most)


def test_a_finalized_seasons_board_costs_the_same_statements_for_4_or_16_players(
    api, service, amir
):
    seasons_played(service, amir, 1)  # season 1: amir and three others
    korts_won(service, amir, 4)
    season_end()  # season 2: amir and fifteen others

    four = get_counted(api, f"{SEASONS}1/leaderboard/")
    sixteen = get_counted(api, f"{SEASONS}2/leaderboard/")

    assert_flat(four, sixteen, at_most=3)


# Bazar Belote (API.md "Bazar Belote")


def test_scoring_a_belote_deal_reads_nothing_stored(api, service):
    _, anonymous = post_counted(api, SCORE, EXAMPLE_2)
    _, with_a_key = post_counted(service, SCORE, EXAMPLE_2)

    assert anonymous == []
    # A service key costs its own look-up, and nothing else.
    assert all("rest_framework_api_key" in sql for sql in with_a_key), with_a_key


def test_opening_a_score_sheet_costs_the_same_statements_with_0_or_8_sheets(service):
    pairs = {"pair_1": "We", "pair_2": "They"}
    _, first = post_counted(service, PROTOCOLS, {"pairs": pairs})
    for _ in range(7):
        add_deal(service, open_sheet(service), "pair_1", KONTRA_MADE)

    _, ninth = post_counted(service, PROTOCOLS, {"pairs": pairs})

    assert_flat(first, ninth, at_most=4)


def test_adding_a_deal_costs_the_same_statements_after_0_or_7_deals(service):
    sheet = open_sheet(service)
    deals = f"{PROTOCOLS}{sheet}/deals/"
    _, first = post_counted(service, deals, {"playing_pair": "pair_1", **KONTRA_MADE})
    for pair in ("pair_2", "pair_1") * 3:
        add_deal(service, sheet, pair, KONTRA_MADE)

    _, eighth = post_counted(service, deals, {"playing_pair": "pair_2", **KONTRA_MADE})

    assert_flat(first, eighth, at_most=6)


def test_the_score_sheet_list_costs_the_same_statements_for_2_or_8_sheets(api, service):
    def sheets(count: int) -> None:
        for _ in range(count):
            sheet = open_sheet(service)
            add_deal(service, sheet, "pair_1", KONTRA_MADE)
            add_deal(service, sheet, "pair_2", KONTRA_MADE)

    sheets(2)
    two = get_counted(api, PROTOCOLS)
    sheets(6)

    eight = get_counted(api, PROTOCOLS)

    assert_flat(two, eight, at_most=2)


def test_a_score_sheet_costs_the_same_statements_for_1_or_8_deals(api, service):
    sheet = open_sheet(service)
    add_deal(service, sheet, "pair_1", KONTRA_MADE)
    one = get_counted(api, f"{PROTOCOLS}{sheet}/")
    for pair in ("pair_2", "pair_1") * 3 + ("pair_2",):
        add_deal(service, sheet, pair, KONTRA_MADE)

    eight = get_counted(api, f"{PROTOCOLS}{sheet}/")

    assert_flat(one, eight, at_most=2)

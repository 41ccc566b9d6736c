"""Players through the API (API.md "Players"): creating and reading players (with their
leaderboard rank) and tokens."""

import pytest
from django.contrib.auth import get_user_model

from players.models import Player
from tests.api_steps import PLAYERS, korts_won, player_read


def test_create_and_read_a_player(service, api):
    body = {"username": "amir", "display_name": "Amir", "is_bot": False}
    created = service.post(PLAYERS, body)

    assert created.status_code == 201, created.data
    expected = {**body, "id": created.data["id"], "cups": 0, "rank": None}
    assert created.data == expected
    assert player_read(api, created.data["id"]) == expected


@pytest.mark.parametrize(
    ("username", "phrase"),
    [
        pytest.param("amir", "already exists", id="taken"),
        pytest.param("amir sh", "letters of any script, digits", id="space"),
        pytest.param("", "may not be blank", id="blank"),
    ],
)
def test_bad_username_is_rejected(service, cast, username, phrase):
    response = service.post(PLAYERS, {"username": username})
    assert response.status_code == 400
    assert phrase in str(response.data["username"])


def test_a_username_whose_login_name_is_taken_is_rejected(service):
    get_user_model().objects.create(username="player.zed")

    response = service.post("/api/v1/players/", {"username": "zed"})

    assert response.status_code == 400, response.data
    assert "already taken" in str(response.data["username"])
    assert not Player.objects.filter(username="zed").exists()


def test_an_unknown_player_is_404(api):
    assert api.get(f"{PLAYERS}999999/").status_code == 404
    assert api.get(f"{PLAYERS}999999/matches/").status_code == 404


def test_a_token_acts_as_its_player(service, api, cast):
    korts_won(service, cast[2].id, 2)  # two wins for the token's player, at most one for others
    first = service.post(f"{PLAYERS}{cast[2].id}/token/")

    assert first.status_code == 201, first.data
    mine = service.as_player(first.data["token"]).get(f"{PLAYERS}me/stats/")
    assert mine.status_code == 200, mine.data
    assert (mine.data["matches_played"], mine.data["matches_won"]) == (2, 2)
    assert mine.data == player_read(api, cast[2].id, "stats/")

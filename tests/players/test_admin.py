"""The admin of players (API.md "Players"): players created like the API creates them, bans,
read-only cups, and the service keys."""

from rest_framework_api_key.models import APIKey

from players.models import Player
from stats.selectors import player_stats

PLAYERS = "/admin/players/player/"


def test_adding_a_human_gives_a_login_and_zero_statistics(staff):
    r = staff.post(f"{PLAYERS}add/", {"username": "nima", "display_name": "Nima"}, follow=True)
    assert r.status_code == 200
    nima = Player.objects.get(username="nima")
    assert (nima.display_name, nima.is_bot, nima.cups) == ("Nima", False, 0)
    assert nima.user is not None and not nima.user.has_usable_password()
    assert player_stats(nima)["matches_played"] == 0


def test_adding_a_bot_gives_no_login(staff):
    staff.post(f"{PLAYERS}add/", {"username": "robo", "display_name": "Robo", "is_bot": "on"})
    robo = Player.objects.get(username="robo")
    assert robo.is_bot and robo.user is None
    assert player_stats(robo)["matches_played"] == 0


def test_ban_and_unban_actions(staff, cast):
    amir, bita = cast[0], cast[1]
    staff.post(PLAYERS, {"action": "ban", "_selected_action": [amir.pk, bita.pk]})
    assert set(Player.objects.filter(is_banned=True)) == {amir, bita}
    staff.post(PLAYERS, {"action": "unban", "_selected_action": [bita.pk]})
    assert list(Player.objects.filter(is_banned=True)) == [amir]


def test_the_change_form_cannot_move_cups(staff, finalized_ranked):
    amir = Player.objects.get(username="amir")
    assert amir.cups == 8  # 3 plain wins, +2 for the match, +3 for a 3:0 (KORT_RULES §7)
    staff.post(
        f"{PLAYERS}{amir.pk}/change/",
        {"username": "amir", "display_name": "Amir A.", "is_banned": "on", "cups": 900},
    )
    amir.refresh_from_db()
    assert (amir.display_name, amir.is_banned, amir.cups, amir.best_cups) == ("Amir A.", True, 8, 8)


def test_service_keys_are_in_the_admin(staff):
    APIKey.objects.create_key(name="table-server-1")
    r = staff.get("/admin/rest_framework_api_key/apikey/")
    assert r.status_code == 200
    assert "table-server-1" in r.content.decode()

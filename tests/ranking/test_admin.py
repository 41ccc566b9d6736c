"""The admin of players, matches, the cups ledger and statistics (API.md "Leaderboard"):
players created like the API creates them, bans, read-only cups and ledger, and finalized ranked
matches that cannot be deleted."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework_api_key.models import APIKey

from matches.models import Match
from ranking.models import CupChange, Player
from stats.models import PlayerStats


@pytest.fixture
def staff(client, db):
    admin = get_user_model().objects.create_superuser("root", "root@example.org", "pw")
    client.force_login(admin)
    return client


@pytest.fixture
def finalized_ranked(service, cast):
    """A ranked match won 3:0 by team A with three plain wins, finalized."""
    ids = [p.id for p in cast]
    match_id = service.post(
        "/api/v1/matches/", {"mode": "ranked", "seats": ids, "first_trump_seat": 0}
    ).data["id"]
    for number in (1, 2, 3):
        service.post(
            f"/api/v1/matches/{match_id}/rounds/",
            {"number": number, "trump_seat": 0, "tricks": {"A": 7, "B": 2}},
        )
    return Match.objects.get(pk=match_id)


def test_adding_a_human_gives_a_login_and_a_statistics_row(staff):
    r = staff.post(
        "/admin/ranking/player/add/", {"username": "nima", "display_name": "Nima"}, follow=True
    )
    assert r.status_code == 200
    nima = Player.objects.get(username="nima")
    assert (nima.display_name, nima.is_bot, nima.cups) == ("Nima", False, 0)
    assert nima.user is not None and not nima.user.has_usable_password()
    assert PlayerStats.objects.filter(player=nima).exists()


def test_adding_a_bot_gives_no_login(staff):
    staff.post(
        "/admin/ranking/player/add/",
        {"username": "robo", "display_name": "Robo", "is_bot": "on"},
    )
    robo = Player.objects.get(username="robo")
    assert robo.is_bot and robo.user is None
    assert PlayerStats.objects.filter(player=robo).exists()


def test_ban_and_unban_actions(staff, cast):
    amir, bita = cast[0], cast[1]
    changelist = "/admin/ranking/player/"
    staff.post(changelist, {"action": "ban", "_selected_action": [amir.pk, bita.pk]})
    assert set(Player.objects.filter(is_banned=True)) == {amir, bita}
    staff.post(changelist, {"action": "unban", "_selected_action": [bita.pk]})
    assert list(Player.objects.filter(is_banned=True)) == [amir]


def test_the_change_form_cannot_move_cups(staff, finalized_ranked):
    amir = Player.objects.get(username="amir")
    assert amir.cups == 8  # 3 plain wins, +2 for the match, +3 for a 3:0 (KORT_RULES §7)
    staff.post(
        f"/admin/ranking/player/{amir.pk}/change/",
        {"username": "amir", "display_name": "Amir A.", "is_banned": "on", "cups": 900},
    )
    amir.refresh_from_db()
    assert (amir.display_name, amir.is_banned, amir.cups, amir.best_cups) == ("Amir A.", True, 8, 8)


def test_a_finalized_ranked_match_cannot_be_deleted(staff, finalized_ranked):
    r = staff.get(f"/admin/matches/match/{finalized_ranked.pk}/delete/")
    assert r.status_code == 403
    staff.post(
        "/admin/matches/match/",
        {"action": "delete_selected", "_selected_action": [finalized_ranked.pk], "post": "yes"},
    )
    assert Match.objects.filter(pk=finalized_ranked.pk).exists()
    assert CupChange.objects.filter(match=finalized_ranked).count() == 4


def test_an_unfinished_match_can_be_deleted(staff, service, cast):
    ids = [p.id for p in cast]
    match_id = service.post(
        "/api/v1/matches/", {"mode": "ranked", "seats": ids, "first_trump_seat": 0}
    ).data["id"]
    staff.post(f"/admin/matches/match/{match_id}/delete/", {"post": "yes"})
    assert not Match.objects.filter(pk=match_id).exists()


def test_the_match_page_shows_seats_rounds_and_cup_changes(staff, finalized_ranked):
    r = staff.get(f"/admin/matches/match/{finalized_ranked.pk}/change/")
    assert r.status_code == 200
    page = r.content.decode()
    for text in ("amir", "dara", "Rounds", "Cup changes"):
        assert text in page
    found = staff.get("/admin/matches/match/", {"q": "cyrus"})
    assert found.context["cl"].result_count == 1


def test_the_ledger_and_statistics_are_read_only(staff, finalized_ranked):
    change = CupChange.objects.filter(match=finalized_ranked).first()
    assert staff.get("/admin/ranking/cupchange/").status_code == 200
    assert staff.get("/admin/ranking/cupchange/add/").status_code == 403
    assert staff.get(f"/admin/ranking/cupchange/{change.pk}/delete/").status_code == 403
    staff.post(f"/admin/ranking/cupchange/{change.pk}/change/", {"delta": 100})
    change.refresh_from_db()
    assert change.delta in (8, -3)
    for mode, rows in (("ranked", 4), ("room", 0)):
        listed = staff.get("/admin/ranking/cupchange/", {"match__mode__exact": mode})
        assert listed.context["cl"].result_count == rows
    searched = staff.get("/admin/ranking/cupchange/", {"q": "bita"})
    assert [row.delta for row in searched.context["cl"].result_list] == [-3]
    assert staff.get("/admin/stats/playerstats/add/").status_code == 403


def test_service_keys_are_in_the_admin(staff):
    APIKey.objects.create_key(name="table-server-1")
    r = staff.get("/admin/rest_framework_api_key/apikey/")
    assert r.status_code == 200
    assert "table-server-1" in r.content.decode()

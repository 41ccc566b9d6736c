"""Player tokens (API.md "Conventions"): stored only as hashes, a new token on every mint,
shown once, expiring after KORT_PLAYER_TOKEN_DAYS, revoked by ``DELETE
/api/v1/players/{id}/token/``; the admin lists them by prefix and revokes them."""

import io
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.utils.dateparse import parse_datetime

from players.models import PlayerToken
from tests.api_steps import PLAYERS

MY_STATS = f"{PLAYERS}me/stats/"
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def mint(service, player) -> dict:
    response = service.post(f"{PLAYERS}{player.id}/token/")
    assert response.status_code == 201, response.data
    return response.data


def test_every_mint_is_a_new_token_that_expires_after_30_days(service, cast):
    with time_machine.travel(T0, tick=False):
        first, second = mint(service, cast[0]), mint(service, cast[0])
        answers = [service.as_player(m["token"]).get(MY_STATS).status_code for m in (first, second)]

    assert first["token"] != second["token"]
    assert parse_datetime(first["expires_at"]) == T0 + timedelta(days=30)
    assert answers == [200, 200]


@pytest.mark.parametrize("days", [1, 7])
def test_the_lifetime_is_the_setting(service, cast, settings, days):
    settings.KORT_PLAYER_TOKEN_DAYS = days
    with time_machine.travel(T0, tick=False):
        minted = mint(service, cast[0])

    assert parse_datetime(minted["expires_at"]) == T0 + timedelta(days=days)


def test_an_expired_token_is_401(service, cast):
    with time_machine.travel(T0, tick=False):
        token = mint(service, cast[0])["token"]
    with time_machine.travel(T0 + timedelta(days=30, seconds=-1), tick=False):
        assert service.as_player(token).get(MY_STATS).status_code == 200
    with time_machine.travel(T0 + timedelta(days=30), tick=False):
        refused = service.as_player(token).get(MY_STATS)

    assert refused.status_code == 401
    assert refused.data == {"detail": "this player token has expired"}


def test_the_database_holds_no_usable_token(service, cast):
    token = mint(service, cast[0])["token"]
    dump = io.StringIO()
    call_command("dumpdata", stdout=dump)

    prefix, _, secret = token.partition(".")
    assert secret not in dump.getvalue()
    stored = PlayerToken.objects.get()
    assert stored.prefix == prefix
    assert stored.hashed_key.startswith("sha512$$")
    assert token not in stored.hashed_key


@pytest.mark.parametrize("revoker", ["service", "own token"])
def test_delete_revokes_every_token_of_the_player(service, cast, revoker):
    tokens = [mint(service, cast[0])["token"] for _ in range(2)]
    bita = mint(service, cast[1])["token"]
    client = service if revoker == "service" else service.as_player(tokens[0])

    revoked = client.delete(f"{PLAYERS}{cast[0].id}/token/")

    assert revoked.status_code == 204, revoked.content
    for token in tokens:
        refused = service.as_player(token).get(MY_STATS)
        assert (refused.status_code, refused.data) == (
            401,
            {"detail": "invalid or revoked player token"},
        )
    assert service.as_player(bita).get(MY_STATS).status_code == 200
    assert service.as_player(mint(service, cast[0])["token"]).get(MY_STATS).status_code == 200


def test_a_player_cannot_revoke_anothers_tokens(service, api, cast):
    amir = mint(service, cast[0])["token"]
    bita = mint(service, cast[1])["token"]

    refused = service.as_player(bita).delete(f"{PLAYERS}{cast[0].id}/token/")
    anonymous = api.delete(f"{PLAYERS}{cast[0].id}/token/")

    assert refused.status_code == 403, refused.data
    assert "a token of this player" in refused.data["detail"]
    assert anonymous.status_code == 401
    assert service.as_player(amir).get(MY_STATS).status_code == 200


def test_a_player_token_cannot_mint_tokens(service, cast):
    token = mint(service, cast[0])["token"]

    refused = service.as_player(token).post(f"{PLAYERS}{cast[0].id}/token/")

    assert refused.status_code == 403
    assert PlayerToken.objects.count() == 1


def test_the_admin_lists_tokens_by_prefix_and_revokes_them(service, staff, cast):
    amir = mint(service, cast[0])["token"]
    bita = mint(service, cast[1])["token"]
    changelist = "/admin/players/playertoken/"

    page = staff.get(changelist)
    assert page.status_code == 200
    html = page.content.decode()
    assert amir.partition(".")[0] in html and bita.partition(".")[0] in html
    assert amir.partition(".")[2] not in html
    assert staff.get(f"{changelist}?q={amir[:8]}").context["cl"].result_count == 1

    amir_row = PlayerToken.objects.get(player=cast[0])
    staff.post(changelist, {"action": "revoke", "_selected_action": [amir_row.pk]})

    assert service.as_player(amir).get(MY_STATS).status_code == 401
    assert service.as_player(bita).get(MY_STATS).status_code == 200

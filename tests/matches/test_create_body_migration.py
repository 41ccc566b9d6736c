"""A match stored before matches kept their create body gets the fields its rows hold (mode,
seats, first_trump_seat), so a resend with its ``external_id`` and another one of them is a 409
(API.md "Conventions")."""

import pytest
from rest_framework_api_key.models import APIKey

from tests.api_steps import MATCHES
from tests.migrations import migrate

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _latest_afterwards():
    yield
    migrate({})


def test_a_stored_match_is_compared_by_the_fields_its_rows_hold(api):
    apps = migrate({"matches": "0013_season_and_void_constraints"})
    api_key, key = APIKey.objects.create_key(name="game-server")
    player_model = apps.get_model("players", "Player")
    players = [player_model.objects.create(username=n, display_name=n) for n in "abcd"]
    match = apps.get_model("matches", "Match").objects.create(
        mode="room",
        target_wins=7,
        first_trump_seat=2,
        next_trump_seat=2,
        external_id="table-1",
        service_key_id=api_key.pk,
    )
    for seat, player in enumerate(players):
        apps.get_model("matches", "Seat").objects.create(
            match=match, seat=seat, player=player, match_created_at=match.created_at
        )

    migrate({})
    service = api.as_service(key)
    seats = [p.pk for p in players]
    body = {"mode": "room", "seats": seats, "first_trump_seat": 2, "external_id": "table-1"}
    same = service.post(MATCHES, body)
    other = service.post(MATCHES, {**body, "seats": seats[::-1]})

    assert (same.status_code, same.data["id"]) == (200, match.pk)
    assert other.status_code == 409
    assert "another seats" in other.json()["external_id"][0]

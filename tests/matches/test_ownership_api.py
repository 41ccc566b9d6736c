"""Ownership (API.md "Conventions"): a match belongs to the service key that created it. Only
that key reports or finishes its rounds and lets its seats leave; another key gets 403 naming
the rule and nothing is written. Reads stay public."""

import pytest
from rest_framework_api_key.models import APIKey

from matches.models import Match, Round, Seat
from players.services import player_token
from tests.api_steps import MATCHES, ids_of, match_start, round_body, stored_counts


@pytest.fixture
def other_service(api):
    """A second game server, with a key of its own."""
    _, key = APIKey.objects.create_key(name="other-server")
    return api.as_service(key)


def refused_as_not_owner(response):
    assert response.status_code == 403, response.data
    assert "only the service key that created match" in response.data["detail"]


def test_another_key_cannot_report_a_round(service, other_service, cast):
    match_id = match_start(service, ids_of(cast))
    before = stored_counts()

    refused = other_service.post(f"{MATCHES}{match_id}/rounds/", round_body(0, 7, 3))

    refused_as_not_owner(refused)
    assert stored_counts() == before
    assert service.post(f"{MATCHES}{match_id}/rounds/", round_body(0, 7, 3)).status_code == 201


def test_another_key_cannot_finish_a_round_going_for_bavan(service, other_service, cast):
    match_id = match_start(service, ids_of(cast))
    service.post(f"{MATCHES}{match_id}/rounds/", round_body(0, 7, 0, "vote"))
    for seat in (0, 2):
        voter = service.as_player(player_token(cast[seat]).key)
        assert (
            voter.post(f"{MATCHES}{match_id}/rounds/1/vote/", {"vote": "bavan"}).status_code == 201
        )
    finish = f"{MATCHES}{match_id}/rounds/1/finish/"

    refused = other_service.post(finish, {"tricks": {"A": 13, "B": 0}})

    refused_as_not_owner(refused)
    assert Round.objects.get(match_id=match_id).status == "bavan"
    assert service.post(finish, {"tricks": {"A": 13, "B": 0}}).status_code == 201


def test_another_key_cannot_let_a_seat_leave(service, other_service, cast):
    match_id = match_start(service, ids_of(cast))

    refused = other_service.post(f"{MATCHES}{match_id}/seats/1/leave/")

    refused_as_not_owner(refused)
    assert Seat.objects.get(match_id=match_id, seat=1).left_at is None


def test_another_key_cannot_report_rounds_by_recreating_the_match(service, other_service, cast):
    # The same external_id from another key is another key's match (API.md "Conventions").
    body = {"mode": "ranked", "seats": ids_of(cast), "external_id": "table-17/4411"}
    first = service.post(MATCHES, body)
    second = other_service.post(MATCHES, body)

    assert (first.status_code, second.status_code) == (201, 201)
    assert first.data["id"] != second.data["id"]
    assert Match.objects.count() == 2


def test_reads_of_a_match_stay_public(service, api, other_service, cast):
    match_id = match_start(service, ids_of(cast))

    for reader in (api, other_service):
        assert reader.get(f"{MATCHES}{match_id}/").status_code == 200

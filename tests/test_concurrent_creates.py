"""Creates sent at the same moment never answer 500 (API.md "Conventions"): the unique
constraint that decides a race gives the answer the same requests get one after the other, on
every create endpoint, and an ``Idempotency-Key`` claimed by one request is a 409 or the replay
for the others. Real threads, each with its own connection: needs PostgreSQL."""

from collections import Counter

import pytest
from rest_framework.test import APIClient
from rest_framework_api_key.models import APIKey

from belote.models import BeloteDeal, BeloteProtocol
from matches.models import Match
from players.models import Player
from tests.api_steps import MATCHES, PLAYERS, ids_of
from tests.belote.examples import EXAMPLE_1, EXAMPLE_2
from tests.concurrency import at_once

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def posts_at_once(service_key: str, path: str, bodies: list[dict], key: str | None = None):
    """POST each body from its own client and thread, all released together."""

    def post(body):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Api-Key {service_key}")
        headers = {} if key is None else {"Idempotency-Key": key}
        return client.post(path, body, format="json", headers=headers)

    return at_once([lambda body=body: post(body) for body in bodies])


def sheet_of(service_key: str) -> BeloteProtocol:
    """A score sheet the key opened."""
    key = APIKey.objects.get_from_key(service_key)
    return BeloteProtocol.objects.create(pair_1="We", pair_2="They", service_key_id=key.pk)


@pytest.mark.parametrize("rerun", range(3))
def test_one_username_from_8_threads_is_one_player_and_seven_400s(service_key, rerun):
    answers = posts_at_once(service_key, PLAYERS, [{"username": "amir"}] * 8)

    assert Counter(a.status_code for a in answers) == {201: 1, 400: 7}
    # Refused as a name taken one after the other is: by the serializer's check when the first
    # player was stored before it ran, else by the service's (its checks of the player and of
    # its login, or the unique constraint).
    refused = {message for a in answers if a.status_code == 400 for message in a.json()["username"]}
    assert refused <= {
        "player with this username already exists.",
        "a player named 'amir' already exists (names ignore case)",
        "the username 'amir' is already taken",
    }
    assert all(list(a.json()) == ["username"] for a in answers if a.status_code == 400)
    assert Player.objects.filter(username="amir").count() == 1


@pytest.mark.parametrize("rerun", range(3))
def test_one_external_id_from_8_threads_is_one_match(service_key, cast, rerun):
    body = {"mode": "ranked", "seats": ids_of(cast), "external_id": "table-17/4411"}

    answers = posts_at_once(service_key, MATCHES, [body] * 8)

    assert Counter(a.status_code for a in answers) == {201: 1, 200: 7}
    assert {a.json()["id"] for a in answers} == {Match.objects.get().pk}


def test_one_external_id_with_two_bodies_at_once_is_one_match_and_409s(service_key, cast):
    ranked = {"mode": "ranked", "seats": ids_of(cast), "external_id": "table-1"}
    room = {**ranked, "mode": "room"}

    answers = posts_at_once(service_key, MATCHES, [ranked, room] * 4)

    match = Match.objects.get()
    for body, answer in zip([ranked, room] * 4, answers, strict=True):
        expected = (201, 200) if body["mode"] == match.mode else (409,)
        assert answer.status_code in expected
    assert Counter(a.status_code for a in answers)[409] == 4


@pytest.mark.parametrize("rerun", range(2))
def test_20_sends_of_one_deal_at_its_place_store_one_deal(service_key, rerun):
    sheet = sheet_of(service_key)
    body = {"playing_pair": "pair_1", "deal": 1, **EXAMPLE_2}

    answers = posts_at_once(service_key, f"/api/v1/belote/protocols/{sheet.pk}/deals/", [body] * 20)

    assert Counter(a.status_code for a in answers) == {201: 1, 200: 19}
    assert BeloteDeal.objects.filter(protocol=sheet).count() == 1
    assert {a.json()["totals"]["pair_1"] for a in answers} == {28}


def test_deals_at_once_without_a_place_are_each_added(service_key):
    sheet = sheet_of(service_key)
    bodies = [{"playing_pair": "pair_1", **deal} for deal in (EXAMPLE_1, EXAMPLE_2) * 3]

    answers = posts_at_once(service_key, f"/api/v1/belote/protocols/{sheet.pk}/deals/", bodies)

    assert Counter(a.status_code for a in answers) == {201: 6}
    assert sorted(sheet.deals.values_list("number", flat=True)) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("rerun", range(3))
def test_one_idempotency_key_from_8_threads_runs_one_request(service_key, cast, rerun):
    body = {"mode": "ranked", "seats": ids_of(cast)}

    answers = posts_at_once(service_key, MATCHES, [body] * 8, key="create-once")

    first = [a for a in answers if a.status_code == 201 and "Idempotent-Replayed" not in a]
    others = Counter(
        "replayed" if "Idempotent-Replayed" in a else a.status_code
        for a in answers
        if a not in first
    )
    assert len(first) == 1
    assert set(others) <= {"replayed", 409}
    assert sum(others.values()) == 7
    assert Match.objects.count() == 1

"""A match created again with its ``external_id`` (API.md "Conventions"): the same body returns
the stored match (200); another ``mode``, ``seats``, ``first_trump_seat`` or ``rounds`` is a 409
naming the fields that differ, and nothing is written."""

import pytest

from matches.models import Match
from tests.api_steps import MATCHES, ids_of, round_body, stored_counts

EXTERNAL_ID = "table-17/4411"


def created(service, cast, **fields) -> dict:
    body = {"mode": "ranked", "seats": ids_of(cast), "external_id": EXTERNAL_ID, **fields}
    response = service.post(MATCHES, body)
    assert response.status_code == 201, response.data
    return body


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda body: {"mode": "room"}, "mode"),
        (lambda body: {"seats": body["seats"][::-1]}, "seats"),
        (lambda body: {"first_trump_seat": 1}, "first_trump_seat"),
        (lambda body: {"rounds": [round_body(0, 7, 3)]}, "rounds"),
        (lambda body: {"mode": "room", "first_trump_seat": 2}, "mode, first_trump_seat"),
    ],
    ids=["mode", "seats", "first_trump_seat", "rounds", "two-fields"],
)
def test_another_body_is_a_409_naming_the_fields_and_writes_nothing(service, cast, change, named):
    body = created(service, cast)
    before = stored_counts()

    response = service.post(MATCHES, {**body, **change(body)})

    assert response.status_code == 409
    assert response.json() == {
        "external_id": [
            f"match {Match.objects.get().pk} was created with this external_id and another "
            f"{named}; a resend must repeat the body that created it"
        ]
    }
    assert stored_counts() == before


def test_a_whole_match_resent_with_other_rounds_is_a_409(service, cast):
    rounds = [round_body(0, 7, 3), round_body(0, 7, 2)]
    body = created(service, cast, rounds=rounds)
    before = stored_counts()

    fewer = service.post(MATCHES, {**body, "rounds": rounds[:1]})
    other = service.post(MATCHES, {**body, "rounds": [rounds[0], round_body(0, 3, 7)]})

    assert (fewer.status_code, other.status_code) == (409, 409)
    assert "another rounds" in other.json()["external_id"][0]
    assert stored_counts() == before
    assert Match.objects.get().wins_a == 2


def test_the_same_whole_match_again_is_the_stored_one(service, cast):
    rounds = [round_body(0, 7, 3, number=1), round_body(0, 7, 2, number=2)]
    body = created(service, cast, rounds=rounds)
    before = stored_counts()

    again = service.post(MATCHES, body)

    assert again.status_code == 200
    assert again.data["id"] == Match.objects.get().pk
    assert again.data["wins"] == {"A": 2, "B": 0}
    assert stored_counts() == before


def test_the_fields_outside_the_body_compared_may_change(service, cast):
    body = created(service, cast, client_version="1.2.6")

    again = service.post(MATCHES, {**body, "client_version": "1.2.7"})

    assert again.status_code == 200
    assert Match.objects.get().client_version == "1.2.6"

"""Hostile input at the edges of the API: never a 500, always the API's error shape."""

import pytest

from players.models import Player
from tests.api_steps import MATCHES, ids_of, match_start, round_body

HUGE = 2**63


def test_json_nested_too_deeply_is_a_400(service):
    body = "[" * 5000 + "]" * 5000

    response = service.client.post("/api/v1/players/", body, content_type="application/json")

    assert response.status_code == 400
    assert "nested too deeply" in response.json()["detail"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", f"/api/v1/matches/{HUGE}/rounds/1/vote/"),
        ("post", f"/api/v1/matches/{HUGE}/rounds/1/finish/"),
        ("post", f"/api/v1/matches/{HUGE}/seats/1/leave/"),
        ("post", f"/api/v1/matches/{HUGE}/rounds/"),
        ("get", f"/api/v1/matches/{HUGE}/"),
        ("get", f"/api/v1/players/{HUGE}/stats/"),
        ("get", f"/api/v1/leaderboard/around/{HUGE}/"),
        ("get", f"/api/v1/belote/protocols/{HUGE}/"),
    ],
)
def test_an_id_beyond_64_bits_is_a_404(service, method, path):
    response = getattr(service.client, method)(path, {}, format="json")

    assert response.status_code == 404


def test_a_username_differing_only_in_case_is_taken(service):
    assert service.post("/api/v1/players/", {"username": "Amir"}).status_code == 201

    response = service.post("/api/v1/players/", {"username": "amir"})

    assert response.status_code == 400
    assert "exists already" in str(response.data["username"])
    assert Player.objects.count() == 1


def test_a_resend_with_an_explicit_null_is_the_same_report(service, cast):
    match_id = match_start(service, ids_of(cast))
    first = service.post(f"{MATCHES}{match_id}/rounds/", {**round_body(0, 7, 3), "number": 1})
    assert first.status_code == 201, first.data

    again = {**round_body(0, 7, 3), "number": 1, "bavan": None}
    response = service.post(f"{MATCHES}{match_id}/rounds/", again)

    assert response.status_code == 200, response.data


def test_a_round_numbered_past_the_end_of_a_match_is_a_conflict(service, cast):
    body = {"mode": "ranked", "seats": ids_of(cast), "rounds": [round_body(0, 7, 0, "stop")]}
    match_id = service.post(MATCHES, body).data["id"]

    response = service.post(f"{MATCHES}{match_id}/rounds/", {**round_body(2, 7, 3), "number": 9})

    assert response.status_code == 409, response.data
    assert "the match ended" in str(response.data["match"])

"""A service key revoked in the admin gets 401 everywhere (API.md "Conventions"), public reads
and stateless endpoints included."""

import pytest
from rest_framework_api_key.models import APIKey

from belote.models import BeloteProtocol
from tests.api_steps import MATCHES, ids_of, match_start, round_body
from tests.belote.test_protocols_api import KONTRA_MADE


@pytest.fixture
def revoked(service, service_key):
    """The game server's client, after its key was revoked."""
    APIKey.objects.update(revoked=True)
    return service


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/v1/players/", {"username": "amir"}),
        ("get", "/api/v1/players/", None),
        ("get", "/api/v1/leaderboard/", None),
        ("get", MATCHES, None),
        ("post", "/api/v1/belote/score/", KONTRA_MADE),
        ("post", "/api/v1/belote/protocols/", {"pairs": {"pair_1": "We", "pair_2": "They"}}),
        ("post", "/api/v1/kort/bavan-guaranteed/", {}),
        ("get", "/api/schema/", None),
    ],
)
def test_a_revoked_key_gets_401(revoked, method, path, body):
    response = getattr(revoked, method)(path, body)

    assert response.status_code == 401, response.content
    assert response.json() == {"detail": "invalid or revoked service key"}
    assert BeloteProtocol.objects.count() == 0


def test_a_revoked_key_no_longer_reports_rounds(service, api, cast):
    match_id = match_start(service, ids_of(cast))
    APIKey.objects.update(revoked=True)

    response = service.post(f"{MATCHES}{match_id}/rounds/", round_body(0, 7, 3))

    assert response.status_code == 401
    assert api.get(f"{MATCHES}{match_id}/").json()["rounds"] == []

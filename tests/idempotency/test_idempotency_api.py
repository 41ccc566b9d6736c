"""``Idempotency-Key`` on every POST (API.md "Conventions"): a repeat with the same body gets the
first answer again and writes nothing, another body is a 422, a repeat while the first runs is a
409, a 5xx is not kept, and keys older than ``KORT_IDEMPOTENCY_HOURS`` are purged."""

from datetime import timedelta
from unittest import mock

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework_api_key.models import APIKey

from idempotency.models import IdempotencyKey
from kort_site.tasks import purge_idempotency_keys
from matches import services as match_services
from matches.models import Match
from players.models import Player
from tests.api_steps import MATCHES, PLAYERS, ids_of, match_start, round_body, stored_counts


def keyed(client: APIClient, path: str, body, key: str, **extra):
    return client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=key, **extra)


def new_match(cast, mode="ranked") -> dict:
    return {"mode": mode, "seats": ids_of(cast), "first_trump_seat": 0}


def test_a_repeat_replays_the_first_answer_and_writes_nothing(service, cast):
    first = keyed(service.client, MATCHES, new_match(cast), "create-1")
    again = keyed(service.client, MATCHES, new_match(cast), "create-1")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert again["Content-Type"] == "application/json"
    assert "Idempotent-Replayed" not in first
    assert Match.objects.count() == 1


def test_a_round_reported_twice_with_one_key_is_stored_once(service, cast):
    match_id = match_start(service, ids_of(cast))
    path = f"{MATCHES}{match_id}/rounds/"

    answers = [keyed(service.client, path, round_body(0, 7, 3), "round-1") for _ in range(2)]

    assert [a.status_code for a in answers] == [201, 201]
    assert answers[1]["Idempotent-Replayed"] == "true"
    assert Match.objects.get().wins_a == 1


def test_the_same_json_in_another_spelling_is_the_same_body(service, cast):
    body = new_match(cast)
    spelled = f'{{"first_trump_seat": 0,\n "seats": {ids_of(cast)}, "mode": "ranked"}}'
    first = keyed(service.client, MATCHES, body, "spelling")

    again = service.client.post(
        MATCHES, spelled, content_type="application/json", HTTP_IDEMPOTENCY_KEY="spelling"
    )

    assert again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert Match.objects.count() == 1


@pytest.mark.parametrize(
    ("path", "body"),
    [(MATCHES, {"mode": "room"}), (PLAYERS, {"username": "zed"})],
    ids=["another-body", "another-path"],
)
def test_the_key_with_another_request_is_a_422_naming_the_header(service, cast, path, body):
    keyed(service.client, MATCHES, new_match(cast), "reused")
    before = stored_counts()

    response = keyed(service.client, path, {**new_match(cast), **body}, "reused")

    assert response.status_code == 422
    assert list(response.json()) == ["Idempotency-Key"]
    assert "another request" in response.json()["Idempotency-Key"][0]
    assert stored_counts() == before
    assert not Player.objects.filter(username="zed").exists()


def test_another_credential_has_keys_of_its_own(service, api, cast):
    _, other_key = APIKey.objects.create_key(name="other-server")
    other = api.as_service(other_key)

    first = keyed(service.client, MATCHES, new_match(cast), "shared-key")
    second = keyed(other.client, MATCHES, new_match(cast), "shared-key")

    assert (first.status_code, second.status_code) == (201, 201)
    assert "Idempotent-Replayed" not in second
    assert second.json()["id"] != first.json()["id"]


def test_a_repeat_while_the_first_is_in_flight_is_a_409(service, cast):
    repeats = []
    create = match_services.match_create

    def create_and_repeat(**kwargs):
        repeats.append(keyed(service.client, MATCHES, new_match(cast), "in-flight"))
        return create(**kwargs)

    with mock.patch.object(match_services, "match_create", create_and_repeat):
        first = keyed(service.client, MATCHES, new_match(cast), "in-flight")

    assert first.status_code == 201
    assert repeats[0].status_code == 409
    assert "still being processed" in repeats[0].json()["Idempotency-Key"][0]
    assert Match.objects.count() == 1


def test_a_claim_abandoned_mid_request_is_claimed_afresh(service, cast):
    # A request whose process died after the claim: the key answers 409 for 5 minutes only.
    create = match_services.match_create

    def create_and_abandon(**kwargs):
        IdempotencyKey.objects.update(created_at=timezone.now() - timedelta(minutes=5, seconds=1))
        return create(**kwargs)

    abandon = mock.patch.object(match_services, "match_create", create_and_abandon)
    never_kept = mock.patch("kort_site.idempotency.key_keep")
    with abandon, never_kept:
        keyed(service.client, MATCHES, new_match(cast), "abandoned")

    again = keyed(service.client, MATCHES, new_match(cast), "abandoned")

    assert again.status_code == 201
    assert "Idempotent-Replayed" not in again
    assert Match.objects.count() == 2


def test_a_5xx_is_not_kept_and_the_key_may_be_used_again(service_key, cast):
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {service_key}")
    broken = mock.patch.object(match_services, "match_create", side_effect=RuntimeError("down"))

    with broken:
        failed = keyed(client, MATCHES, new_match(cast), "retry-me")
    retried = keyed(client, MATCHES, new_match(cast), "retry-me")

    assert failed.status_code == 500
    assert retried.status_code == 201
    assert "Idempotent-Replayed" not in retried
    assert Match.objects.count() == 1


def test_a_refusal_of_the_input_is_kept_too(service, cast):
    body = {**new_match(cast), "seats": [1, 2, 3]}

    answers = [keyed(service.client, MATCHES, body, "bad-seats") for _ in range(2)]

    assert [a.status_code for a in answers] == [400, 400]
    assert answers[1].json() == answers[0].json()
    assert answers[1]["Idempotent-Replayed"] == "true"


def test_a_body_that_repeats_a_key_is_not_the_body_that_names_it_once(service, cast):
    body = new_match(cast)
    repeated = (
        f'{{"mode": "room", "mode": "ranked", "seats": {ids_of(cast)}, "first_trump_seat": 0}}'
    )
    refused = service.client.post(
        MATCHES, repeated, content_type="application/json", HTTP_IDEMPOTENCY_KEY="repeated"
    )

    fixed = keyed(service.client, MATCHES, body, "repeated")

    assert (refused.status_code, fixed.status_code) == (400, 422)
    assert Match.objects.count() == 0


def test_a_refused_credential_is_not_kept(api, service_key, cast):
    bad = api.as_service("not.a-key")
    refused = keyed(bad.client, MATCHES, new_match(cast), "auth")
    good = api.as_service(service_key)

    assert refused.status_code == 401
    assert IdempotencyKey.objects.count() == 0
    assert keyed(good.client, MATCHES, new_match(cast), "auth").status_code == 201


@pytest.mark.parametrize(
    "key",
    ["", "k" * 256, "ключ", "tab\there"],
    ids=["empty", "256-characters", "non-ascii", "control-character"],
)
def test_a_malformed_key_is_a_400_naming_the_header(service, cast, key):
    response = service.client.post(
        MATCHES, new_match(cast), format="json", headers={"Idempotency-Key": key}
    )

    assert response.status_code == 400
    assert "1 to 255 printable ASCII" in response.json()["Idempotency-Key"][0]
    assert Match.objects.count() == 0


def test_a_key_of_255_characters_is_taken(service, cast):
    response = keyed(service.client, MATCHES, new_match(cast), "k" * 255)

    assert response.status_code == 201
    assert IdempotencyKey.objects.get().key == "k" * 255


def test_without_the_header_every_post_is_a_new_request(service, cast):
    for _ in range(2):
        assert service.post(MATCHES, new_match(cast)).status_code == 201

    assert Match.objects.count() == 2
    assert IdempotencyKey.objects.count() == 0


def test_a_player_token_is_never_stored_with_its_key(service, cast):
    response = keyed(service.client, f"{PLAYERS}{cast[0].id}/token/", None, "mint")

    assert response.status_code in (200, 201)
    assert "Idempotent-Replayed" not in response
    assert IdempotencyKey.objects.count() == 0


def test_no_usable_credential_is_stored(service, service_key, cast):
    keyed(service.client, MATCHES, new_match(cast), "secret-free")

    row = IdempotencyKey.objects.get()
    assert service_key not in row.scope
    assert len(row.scope) == 64


@override_settings(KORT_IDEMPOTENCY_HOURS=2)
def test_old_keys_are_purged_and_an_expired_key_starts_afresh(service, cast):
    keyed(service.client, MATCHES, new_match(cast), "old")
    keyed(service.client, MATCHES, new_match(cast, "room"), "fresh")
    IdempotencyKey.objects.filter(key="old").update(
        created_at=timezone.now() - timedelta(hours=2, seconds=1)
    )

    again = keyed(service.client, MATCHES, new_match(cast, "room"), "old")
    assert again.status_code == 201  # expired: a new request, even with another body
    IdempotencyKey.objects.update(created_at=timezone.now() - timedelta(hours=3))

    assert purge_idempotency_keys.delay().get() == 2
    assert IdempotencyKey.objects.count() == 0
    assert Match.objects.count() == 3


def test_the_purge_runs_on_celery_beat():
    from django.conf import settings

    entry = settings.CELERY_BEAT_SCHEDULE["purge-idempotency-keys"]
    assert entry["task"] == purge_idempotency_keys.name == "kort_site.purge_idempotency_keys"
    assert entry["schedule"] == settings.KORT_IDEMPOTENCY_PURGE_SECONDS


def test_the_schema_names_the_header_on_every_post_only(api):
    schema = api.client.get("/api/schema/", {"format": "json"}).json()

    operations = [
        (method, path, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
    ]
    for method, path, operation in operations:
        headers = {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "header"}
        assert ("Idempotency-Key" in headers) == (method == "post"), (method, path)
        if method == "post":
            assert headers["Idempotency-Key"]["schema"]["maxLength"] == 255
            assert {"400", "409", "422"} <= set(operation["responses"]), path
    assert sum(method == "post" for method, _, _ in operations) >= 8

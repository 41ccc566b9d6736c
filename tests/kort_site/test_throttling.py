"""Request rates (API.md "Conventions", Throttling): a valid service key or player token counts
only against that credential's rate, on every endpoint; other requests, bad credentials
included, count against their client address; over the rate is a 429 with ``Retry-After``."""

import ipaddress
import os
import subprocess
import sys
import uuid

import pytest
from rest_framework_api_key.models import APIKey

from players.services import player_token
from tests.api_steps import PLAYERS

LEADERBOARD = "/api/v1/leaderboard/"


@pytest.fixture
def rates(settings):
    """``rates(anon="20/min", ...)``: the rates of this test, counted in a cache of its own."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"rates-{uuid.uuid4()}",
        }
    }

    def set_rates(anon=None, player=None, service=None):
        settings.KORT_THROTTLE_ANON = anon
        settings.KORT_THROTTLE_PLAYER = player
        settings.KORT_THROTTLE_SERVICE = service

    return set_rates


def statuses(client, count: int, path: str = LEADERBOARD, method: str = "get") -> list[int]:
    return [getattr(client, method)(path).status_code for _ in range(count)]


def test_the_21st_anonymous_request_in_a_minute_is_a_429_with_retry_after(api, rates):
    rates(anon="20/min")

    assert statuses(api, 20) == [200] * 20
    response = api.get(LEADERBOARD)

    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    assert "throttled" in response.json()["detail"]


def test_a_spoofed_forwarded_address_is_not_another_client(api, rates):
    rates(anon="3/min")

    answers = [
        api.client.get(LEADERBOARD, HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").status_code
        for n in range(4)
    ]

    assert answers == [200, 200, 200, 429]


@pytest.fixture
def behind_a_proxy(settings):
    """The service trusts the proxies of 10.1.0.0/16 (KORT_TRUSTED_PROXIES)."""
    settings.KORT_TRUSTED_PROXIES = (ipaddress.ip_network("10.1.0.0/16"),)


def forwarded(api, peer: str, header: str) -> int:
    return api.client.get(LEADERBOARD, REMOTE_ADDR=peer, HTTP_X_FORWARDED_FOR=header).status_code


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_count(api, rates, behind_a_proxy):
    rates(anon="2/min")

    first = [forwarded(api, "10.1.0.5", "203.0.113.7") for _ in range(2)]
    # The last address is the one the proxy saw; what the client wrote before it is ignored.
    second = [forwarded(api, "10.1.0.5", f"203.0.113.7, 198.51.100.{n}") for n in (1, 1)]

    assert first == [200, 200]
    assert second == [200, 200]
    assert forwarded(api, "10.1.0.6", "203.0.113.7") == 429  # the same client, another proxy


def test_a_forwarded_address_from_a_peer_that_is_no_trusted_proxy_is_ignored(
    api, rates, behind_a_proxy
):
    rates(anon="2/min")

    answers = [forwarded(api, "198.51.100.9", f"10.1.0.{n}") for n in range(3)]

    assert answers == [200, 200, 429]


def test_a_service_key_counts_only_against_its_own_rate(service, api, rates):
    rates(anon="2/min", service="5/min")

    assert statuses(service, 5) == [200] * 5
    assert statuses(service, 1, PLAYERS) == [429]
    assert statuses(api, 3) == [200, 200, 429]


def test_each_service_key_has_its_own_count(service, api, rates):
    rates(service="2/min")
    _, other_key = APIKey.objects.create_key(name="other-server")

    assert statuses(service, 3) == [200, 200, 429]
    assert statuses(api.as_service(other_key), 2) == [200, 200]


def test_a_player_token_counts_only_against_its_players_rate(api, cast, rates):
    rates(anon="1/min", player="3/min")
    amir = api.as_player(player_token(cast[0]).key)

    assert statuses(amir, 4, "/api/v1/players/me/stats/") == [200, 200, 200, 429]
    assert statuses(api.as_player(player_token(cast[1]).key), 1) == [200]
    assert statuses(api, 2) == [200, 429]


@pytest.mark.parametrize("credential", ["as_service", "as_player"])
def test_bad_credentials_count_against_the_address(api, rates, credential):
    rates(anon="5/min", player="100/min", service="100/min")
    guesser = getattr(api, credential)("guessed-credential")

    assert statuses(guesser, 6) == [401] * 5 + [429]
    assert statuses(api, 1) == [429]


def test_refused_requests_count_too(api, cast, rates):
    rates(anon="2/min", player="2/min")
    amir = api.as_player(player_token(cast[0]).key)

    # A player token where a service key is needed (403), and no credential at all (401).
    assert statuses(amir, 3, PLAYERS, "post") == [403, 403, 429]
    assert statuses(api, 3, PLAYERS, "post") == [401, 401, 429]


def test_a_rate_of_none_turns_that_throttle_off(api, rates):
    rates(anon=None)

    assert set(statuses(api, 50)) == {200}


def settings_in_a_fresh_process(**environment) -> str:
    """The cache backend and location the settings pick from ``environment``."""
    script = (
        "from kort_site import settings as s; c = s.CACHES['default']; "
        "print(c['BACKEND'].rsplit('.', 1)[1], c.get('LOCATION', ''), s.KORT_THROTTLE_ANON)"
    )
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("KORT_", "CELERY_"))}
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**keep, **environment},
        capture_output=True,
        text=True,
        check=False,
    )
    return (done.stdout or done.stderr).strip()


def test_the_counts_are_shared_in_the_brokers_redis_when_it_is_one():
    assert settings_in_a_fresh_process() == "LocMemCache  300/min"
    assert settings_in_a_fresh_process(CELERY_BROKER_URL="redis://cache:6379/2") == (
        "RedisCache redis://cache:6379/2 300/min"
    )
    assert settings_in_a_fresh_process(CELERY_BROKER_URL="amqp://rabbit//").startswith(
        "LocMemCache"
    )
    assert settings_in_a_fresh_process(
        CELERY_BROKER_URL="redis://cache:6379/2", KORT_CACHE_URL="redis://other:6379/5"
    ).startswith("RedisCache redis://other:6379/5")


def test_a_rate_is_read_from_the_environment_and_a_bad_one_stops_the_start():
    assert settings_in_a_fresh_process(KORT_THROTTLE_ANON="none").endswith(" None")
    assert settings_in_a_fresh_process(KORT_THROTTLE_ANON="20/min").endswith(" 20/min")
    assert "is not a rate like 300/min" in settings_in_a_fresh_process(KORT_THROTTLE_ANON="fast")

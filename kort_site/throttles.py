"""Request rates (API.md "Conventions", Throttling): a request with a valid service key counts
against that key's rate, one with a valid player token against that player's, and any other
request against its client address's; a request over its rate is a 429 with ``Retry-After``.

The rates are the settings ``KORT_THROTTLE_SERVICE``, ``KORT_THROTTLE_PLAYER`` and
``KORT_THROTTLE_ANON`` (``"300/min"``; None turns one off), read at each request. The counts
live in the default cache, which production shares between its web processes (Redis).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from rest_framework import exceptions
from rest_framework.throttling import SimpleRateThrottle
from rest_framework_api_key.models import APIKey

from players.models import PlayerToken

if TYPE_CHECKING:  # DRF's views import this module (their default throttles) as they load
    from rest_framework.request import Request
    from rest_framework.views import APIView


class _RateThrottle(SimpleRateThrottle):
    """A throttle whose rate is the setting ``rate_setting``, and which counts a request under
    :meth:`ident` (None: the request is not this throttle's to count)."""

    rate_setting = ""

    def get_rate(self) -> str | None:
        return getattr(settings, self.rate_setting)

    def ident(self, request: Request) -> str | None:
        raise NotImplementedError

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        ident = self.ident(request)
        if ident is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": ident}


class ServiceKeyRateThrottle(_RateThrottle):
    scope = "service"
    rate_setting = "KORT_THROTTLE_SERVICE"

    def ident(self, request: Request) -> str | None:
        return request.auth.pk if isinstance(request.auth, APIKey) else None


class PlayerRateThrottle(_RateThrottle):
    scope = "player"
    rate_setting = "KORT_THROTTLE_PLAYER"

    def ident(self, request: Request) -> str | None:
        # Counted by the token's player, so the token itself is never a cache key.
        return str(request.auth.player_id) if isinstance(request.auth, PlayerToken) else None


class AnonymousRateThrottle(_RateThrottle):
    """Requests without a valid credential, counted by client address (``REMOTE_ADDR``, or
    the address ``NUM_PROXIES`` trusted proxies put in ``X-Forwarded-For``)."""

    scope = "anon"
    rate_setting = "KORT_THROTTLE_ANON"

    def ident(self, request: Request) -> str | None:
        return self.get_ident(request) if request.auth is None else None


REFUSED_BEFORE_RATES = (
    exceptions.AuthenticationFailed,
    exceptions.NotAuthenticated,
    exceptions.PermissionDenied,
)
"""What DRF refuses before it checks the rates: bad credentials, missing ones, the wrong kind
of credential for the endpoint."""


def over_rate(request: Request, view: APIView) -> exceptions.Throttled | None:
    """The 429 of a request refused before the rates were checked, if it is over its rate;
    None if it is within it. Counting refused requests too keeps a client from trying keys or
    tokens, or calling endpoints it may not, at any speed: a request whose credential failed
    counts against its address."""
    try:
        view.check_throttles(request)
    except exceptions.Throttled as throttled:
        return throttled
    return None

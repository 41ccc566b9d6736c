"""Request rates (API.md "Conventions", Throttling): a request with a valid service key counts
against that key's rate, one with a valid player token against that player's, and any other
request against its client address's; a request over its rate is a 429 with ``Retry-After``.

The rates are the settings ``KORT_THROTTLE_SERVICE``, ``KORT_THROTTLE_PLAYER`` and
``KORT_THROTTLE_ANON`` (``"300/min"``; None turns one off), read at each request. The counts
live in the default cache, which production shares between its web processes (Redis).

Redis is not a single point of failure (API.md "Conventions"): while that cache cannot be
reached, the counts are kept in process memory (:class:`FallbackCounts`), with one warning for
the outage, and the shared cache is tried again every :data:`RETRY_SECONDS`.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.cache import cache as shared_cache
from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.cache.backends.locmem import LocMemCache
from redis.exceptions import RedisError
from rest_framework import exceptions
from rest_framework.throttling import SimpleRateThrottle
from rest_framework_api_key.models import APIKey

from players.models import PlayerToken

if TYPE_CHECKING:  # DRF's views import this module (their default throttles) as they load
    from rest_framework.request import Request
    from rest_framework.views import APIView


log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0
"""While the shared cache is down, how often a request tries it again (the others count in
process memory meanwhile, without waiting for a connection that fails)."""

CACHE_ERRORS = (RedisError, OSError)
"""What a cache that cannot be reached raises (refused, reset or timed-out connections)."""


class FallbackCounts(BaseCache):
    """The throttles' cache: the default cache (``KORT_CACHE_URL``), or process memory while
    that one raises :data:`CACHE_ERRORS`. The first error of an outage logs a warning, the first
    success after it an info line; in between, the shared cache is tried at most once every
    :data:`RETRY_SECONDS`. Only ``get`` and ``set`` are offered: what DRF's throttles use."""

    def __init__(self) -> None:
        super().__init__({})
        # LocMemCache keeps its entries by name: a name of this instance's own.
        self._memory = LocMemCache(f"kort-throttle-fallback-{uuid.uuid4()}", {})
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._next_try = 0.0

    def get(self, key: str, default: Any = None, version: int | None = None) -> Any:
        return self._call("get", key, default, version)

    def set(
        self,
        key: str,
        value: Any,
        timeout: float | None = DEFAULT_TIMEOUT,
        version: int | None = None,
    ) -> None:
        self._call("set", key, value, timeout, version)

    def _call(self, method: str, *args: Any) -> Any:
        if self._down_since is not None and time.monotonic() < self._next_try:
            return getattr(self._memory, method)(*args)
        try:
            result = getattr(shared_cache, method)(*args)
        except CACHE_ERRORS as error:
            self._failed(error)
            return getattr(self._memory, method)(*args)
        if self._down_since is not None:
            self._recovered()
        return result

    def _failed(self, error: Exception) -> None:
        with self._lock:
            now = time.monotonic()
            self._next_try = now + RETRY_SECONDS
            if self._down_since is None:
                self._down_since = now
                log.warning(
                    "the request rates' cache cannot be reached, counting in process memory "
                    "until it is back: %s",
                    error,
                )

    def _recovered(self) -> None:
        with self._lock:
            if self._down_since is not None:
                log.info(
                    "the request rates' cache is back after %.0f s",
                    time.monotonic() - self._down_since,
                )
                self._down_since = None


counts = FallbackCounts()
"""The one :class:`FallbackCounts` of the process, which every throttle counts in."""


class _RateThrottle(SimpleRateThrottle):
    """A throttle whose rate is the setting ``rate_setting``, and which counts a request under
    :meth:`ident` (None: the request is not this throttle's to count)."""

    cache = counts
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
    """Requests without a valid credential, counted by client address (``REMOTE_ADDR``: the
    peer's, or the one a trusted proxy forwarded, :mod:`kort_site.client_address`)."""

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

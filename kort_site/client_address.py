"""The client's address behind a proxy (docs/production.md, "The buffering proxy"). When the
peer of a request (``REMOTE_ADDR``) is in ``KORT_TRUSTED_PROXIES``, the last address of its
``X-Forwarded-For``, the one that proxy saw, becomes ``REMOTE_ADDR``: the request rates, the
allow list of ``/metrics``, the idempotency keys of requests without a credential and
gunicorn's access log then all see the client. From any other peer the header is ignored, so
a client cannot choose the address it is counted under."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def forwarded_client(peer: str, forwarded: str) -> str | None:
    """The client's address that a trusted ``peer`` put last in ``forwarded``; None when the
    peer is not a trusted proxy or that entry is not an address."""
    proxy = _address(peer)
    if proxy is None or not any(proxy in network for network in settings.KORT_TRUSTED_PROXIES):
        return None
    client = _address(forwarded.rsplit(",", 1)[-1])
    return None if client is None else str(client)


class ForwardedClientMiddleware:
    """First in ``MIDDLEWARE``, so that every other part sees the client's address."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
        if forwarded:
            client = forwarded_client(request.META.get("REMOTE_ADDR", ""), forwarded)
            if client is not None:
                request.META["REMOTE_ADDR"] = client
        return self.get_response(request)

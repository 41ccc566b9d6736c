"""``Idempotency-Key`` on every ``POST`` under ``/api/`` (API.md "Conventions"; the IETF httpapi
Idempotency-Key draft, as Stripe runs it), at the API's edge, before DRF sees the request.

- The key: 1 to 255 printable ASCII characters, else a 400 naming the header.
- Its scope is the credential: the SHA-256 of the ``Authorization`` header (of the client
  address without one). Its request is the SHA-256 of the method, the path and the body, the body
  as canonical JSON (keys sorted, no spaces) when it is JSON, its bytes otherwise.
- The first request claims the key in the database (``idempotency.services.key_claim``), then
  runs. Its answer (status, body, ``Content-Type`` and ``Location``) is kept for
  ``KORT_IDEMPOTENCY_HOURS``, except a 5xx and the refusals of the credential or its rate (401,
  429): those free the key, so the request may be tried again.
- A repeat with the same body gets the kept answer with ``Idempotent-Replayed: true`` and runs
  nothing; one with another body (or another path) is a 422; one while the first still runs, a
  409. Both name the header, in the API's error shape.
- A player token's mint (``POST /players/{id}/token/``) keeps nothing: its answer is a secret
  shown once, never stored. The header is ignored there.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from http import HTTPStatus

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve

from bulk.reads import primary_reads
from idempotency.services import Claim, key_claim, key_keep, key_release
from kort_site.middleware import is_api

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
KEY_PATTERN = re.compile(r"[ -~]{1,255}")
"""1 to 255 printable ASCII characters (the server strips the spaces around a header value)."""
KEY_SCHEMA_PATTERN = r"^[!-~]([ -~]{0,253}[!-~])?$"
"""The same, as the schema states it: no space first or last."""
KEPT_HEADERS = ("Content-Type", "Location")
NOT_KEPT = (HTTPStatus.UNAUTHORIZED, HTTPStatus.TOO_MANY_REQUESTS)
"""Answers that refuse the credential or its rate, not the request: not kept, as a 5xx."""
SECRET_ANSWERS = {"player-token"}
"""URL names whose answers hold a secret shown once: never stored, so never replayed."""


class IdempotencyMiddleware:
    """After ``ApiEdgesMiddleware`` in ``MIDDLEWARE`` (paths end with their slash, oversized
    bodies are refused before this reads one)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = request.headers.get(HEADER)
        if key is None or request.method != "POST" or not is_api(request) or _secret(request):
            return self.get_response(request)
        if not KEY_PATTERN.fullmatch(key):
            return _refusal(
                HTTPStatus.BAD_REQUEST,
                f"an {HEADER} is 1 to 255 printable ASCII characters (no control or non-ASCII "
                "characters)",
            )
        with primary_reads():  # the key's row decides whether the request runs
            found = key_claim(scope=_scope(request), key=key, fingerprint=_fingerprint(request))
        if found.claim is Claim.OTHER_BODY:
            return _refusal(
                HTTPStatus.UNPROCESSABLE_ENTITY,
                f"this {HEADER} was used with another request (method, path or body); "
                "a new request needs a new key",
            )
        if found.claim is Claim.IN_FLIGHT:
            return _refusal(
                HTTPStatus.CONFLICT,
                f"the first request with this {HEADER} is still being processed; retry later",
            )
        row = found.row
        assert row is not None  # claimed or replayed: the row is in hand
        if found.claim is Claim.REPLAY:
            return _replayed(row.status, row.headers, bytes(row.body))
        try:
            response = self.get_response(request)
        except BaseException:
            key_release(row)
            raise
        if response.status_code >= 500 or response.status_code in NOT_KEPT:
            key_release(row)
        else:
            headers = {name: response[name] for name in KEPT_HEADERS if name in response}
            key_keep(row, status=response.status_code, headers=headers, body=response.content)
        return response


def _secret(request: HttpRequest) -> bool:
    try:
        return resolve(request.path_info).url_name in SECRET_ANSWERS
    except Resolver404:
        return False


def _scope(request: HttpRequest) -> str:
    """The credential's hash: of its ``Authorization`` header, else of the client address."""
    authorization = request.headers.get("Authorization")
    if authorization is not None:
        named = f"authorization:{authorization}"
    else:
        named = f"address:{request.META.get('REMOTE_ADDR', '')}"
    return hashlib.sha256(named.encode("utf-8", "surrogateescape")).hexdigest()


def _fingerprint(request: HttpRequest) -> str:
    digest = hashlib.sha256(f"{request.method} {request.path_info}\n".encode())
    digest.update(_canonical_body(request))
    return digest.hexdigest()


def _canonical_body(request: HttpRequest) -> bytes:
    """The body as canonical JSON when it is JSON whose objects name each key once, else as
    sent (a repeated key is refused, and the body that repeats none is another request)."""
    body = request.body
    if request.content_type == "application/json":
        try:
            document = json.loads(body, object_pairs_hook=_keys_once)
        except (ValueError, RecursionError):
            return body
        return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    return body


def _keys_once(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object, unless it names a key twice (ValueError)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("a key is repeated")
    return found


def _refusal(status: HTTPStatus, message: str) -> JsonResponse:
    return JsonResponse({HEADER: [message]}, status=status)


def _replayed(status: int | None, headers: dict[str, str], body: bytes) -> HttpResponse:
    response = HttpResponse(body, status=status, headers=headers)
    response[REPLAYED] = "true"
    return response

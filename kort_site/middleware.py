"""The API's edges (API.md "Conventions"): under ``/api/`` every path answers with or without
its trailing slash and never redirects, a body over ``KORT_MAX_BODY_BYTES`` is refused with a
413 before it is read, and every error answer is JSON, with debug on or off: Django's own 404
and 500 pages (its debug pages included) become ``{"detail": "..."}`` with the same status.
Paths outside ``/api/`` (the admin) are left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

API_ROOT = "/api"
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")
"""Headers of an error answer that still say something once its body is JSON."""


def is_api(request: HttpRequest) -> bool:
    path = request.path_info
    return path == API_ROOT or path.startswith(f"{API_ROOT}/")


class ApiEdgesMiddleware:
    """First in ``MIDDLEWARE``: it sees every request before the rest, and every answer after
    them, errors turned into responses by Django's handlers included."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_api(request):
            return self.get_response(request)
        if not request.path_info.endswith("/"):
            # Resolved as the path with its slash; ``request.path`` (and the page links built
            # from it) keeps the client's spelling.
            request.path_info += "/"
        response = _body_too_large(request) or self.get_response(request)
        return _as_json(response)


def _body_too_large(request: HttpRequest) -> HttpResponse | None:
    """413 for a declared body over the limit, which is never read. A WSGI request body is
    read up to its declared length only, so a body without one is empty."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None
    limit = settings.KORT_MAX_BODY_BYTES
    if length <= limit:
        return None
    detail = f"the request body is {length} bytes; at most {limit} bytes are accepted"
    return JsonResponse({"detail": detail}, status=HTTPStatus.REQUEST_ENTITY_TOO_LARGE)


def _as_json(response: HttpResponse) -> HttpResponse:
    """An error answer in JSON: a DRF error keeps its body, any other gets the status's name."""
    if response.status_code < 400 or response.get("Content-Type", "").startswith(
        "application/json"
    ):
        return response
    body = getattr(response, "data", None)
    if not isinstance(body, dict):
        body = {"detail": HTTPStatus(response.status_code).phrase}
    answer = JsonResponse(body, status=response.status_code)
    for header in KEPT_HEADERS:
        if header in response:
            answer[header] = response[header]
    return answer

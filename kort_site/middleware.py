"""The API's edges (API.md "Conventions"): under ``/api/`` every path answers with or without
its trailing slash and never redirects, a body over ``KORT_MAX_BODY_BYTES`` is refused with a
413 before it is read, a chunked body (``Transfer-Encoding: chunked``, no length) is read as
any other where the server hands it over whole (gunicorn does) and is a 411 where it does not
(and a 400 when the client drops it or breaks its chunks midway),
a request line or a header field over the lengths gunicorn refuses by default is a 414 / 431,
a ``POST``, ``PUT`` or ``PATCH`` with a body that is not JSON is a 415 before any view runs
(whether or not the view reads its body: nothing is written), and every error answer is
JSON, with debug on or off: Django's own 404 and 500 pages (its debug pages included) become
``{"detail": "..."}`` with the same status. Paths outside ``/api/``
(the admin) are left alone.

The 414 and 431 are answered here so that they are JSON: gunicorn.conf.py lets longer lines
and fields through to the service (up to gunicorn's own hard limits, past which gunicorn answers
in HTML; docs/production.md says what a proxy in front should cap).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from http import HTTPStatus

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from gunicorn.http.errors import ParseException
from rest_framework.exceptions import UnsupportedMediaType
from rest_framework.utils.mediatypes import media_type_matches

from kort_site.parsers import SafeJSONParser

API_ROOT = "/api"
MAX_TARGET_CHARS = 4094
"""The longest request target (path and query string) served: gunicorn's default limit of a
request line, which gunicorn.conf.py raises so that the service answers a longer one itself."""
MAX_HEADER_FIELD_BYTES = 8190
"""The longest header field (name, ``: `` and value) served: gunicorn's default limit."""
BODY_HEADERS = ("content-type", "content-length", "content-disposition", "content-language")
"""Headers of an error answer that describe its body: the others (``Retry-After``, the security
headers) are kept once its body is JSON."""


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
        response = (
            _too_long(request)
            or _chunked_body_read(request)
            or _body_too_large(request)
            or _body_not_json(request)
            or self.get_response(request)
        )
        return _as_json(response)


def _too_long(request: HttpRequest) -> HttpResponse | None:
    """414 for a request target over :data:`MAX_TARGET_CHARS`, 431 for a header field over
    :data:`MAX_HEADER_FIELD_BYTES`."""
    target = request.META.get("RAW_URI") or request.get_full_path()
    if len(target) > MAX_TARGET_CHARS:
        detail = f"the request target is {len(target)} characters; at most {MAX_TARGET_CHARS}"
        return JsonResponse({"detail": detail}, status=HTTPStatus.REQUEST_URI_TOO_LONG)
    for name, value in request.headers.items():
        size = len(name) + 2 + len(value.encode("latin-1", "replace"))
        if size > MAX_HEADER_FIELD_BYTES:
            detail = f"the header {name} is {size} bytes; at most {MAX_HEADER_FIELD_BYTES}"
            return JsonResponse(
                {"detail": detail}, status=HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
            )
    return None


def _chunked_body_read(request: HttpRequest) -> HttpResponse | None:
    """Read a chunked body whole, so that the request has its body and its length as if the
    client had sent ``Content-Length``; 413 past the limit, 411 where the WSGI server does not
    say that it ends the body's stream (``wsgi.input_terminated``: gunicorn does; Django's
    development server does not, and its stream would block)."""
    if "chunked" not in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
        return None
    if not request.META.get("wsgi.input_terminated"):
        detail = "a chunked body is not read by this server: send Content-Length"
        return JsonResponse({"detail": detail}, status=HTTPStatus.LENGTH_REQUIRED)
    limit = settings.KORT_MAX_BODY_BYTES
    try:
        body = request.META["wsgi.input"].read(limit + 1)
    except (OSError, ParseException) as error:
        # The client dropped the connection or broke the chunks mid-body: its fault, not the
        # service's, so a 400 rather than a 500 with a traceback in the error log.
        detail = f"the chunked request body could not be read whole: {error}"
        return JsonResponse({"detail": detail}, status=HTTPStatus.BAD_REQUEST)
    if len(body) > limit:
        detail = f"the request body is over {limit} bytes; at most {limit} bytes are accepted"
        return JsonResponse({"detail": detail}, status=HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
    # The request reads its body from _stream, which Django bounds by CONTENT_LENGTH (absent,
    # so 0, for a chunked body): the body read whole takes its place, with its length.
    request.META["CONTENT_LENGTH"] = str(len(body))
    request._stream = io.BytesIO(body)
    return None


def _body_too_large(request: HttpRequest) -> HttpResponse | None:
    """413 for a declared body over the limit, which is never read. A WSGI request body is
    read up to its declared length only, so a body without one is empty."""
    length = _declared_length(request)
    limit = settings.KORT_MAX_BODY_BYTES
    if length <= limit:
        return None
    detail = f"the request body is {length} bytes; at most {limit} bytes are accepted"
    return JsonResponse({"detail": detail}, status=HTTPStatus.REQUEST_ENTITY_TOO_LARGE)


def _declared_length(request: HttpRequest) -> int:
    """The body's length as ``Content-Length`` declares it; 0 for none, or one that is no
    number (a WSGI request body is read up to its declared length only)."""
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


WITH_BODY = ("POST", "PUT", "PATCH")
"""The methods whose body the API reads, as JSON only."""


def _body_not_json(request: HttpRequest) -> HttpResponse | None:
    """415 for a ``POST``, ``PUT`` or ``PATCH`` that carries a body (a length over 0, a chunked
    body read whole already) of a media type that the API's one parser (JSON) does not read,
    or of none; a request without a body needs no ``Content-Type``."""
    if request.method not in WITH_BODY or _declared_length(request) <= 0:
        return None
    media_type = request.META.get("CONTENT_TYPE", "")
    if media_type_matches(SafeJSONParser.media_type, media_type):
        return None
    detail = UnsupportedMediaType(media_type).detail
    return JsonResponse({"detail": detail}, status=HTTPStatus.UNSUPPORTED_MEDIA_TYPE)


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
    for header, value in response.items():
        if header.lower() not in BODY_HEADERS:
            answer[header] = value
    return answer

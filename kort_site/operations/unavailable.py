"""A database that does not answer (API.md "Operating the service"): a request that fails for
it is a 503 with ``Retry-After``, ``{"detail": "..."}`` naming the database under ``/api/``
and a page of its own elsewhere, instead of a 500. Nothing is kept from the outage: the next
request connects afresh (Django closes a broken connection), so the service is back as soon
as the database is. ``/metrics`` answers all along (``kort_database_up``)."""

from __future__ import annotations

import sys

from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views import defaults

from kort_site.middleware import is_api

RETRY_SECONDS = 5
"""What ``Retry-After`` asks a client to wait for the database."""
DETAIL = "the database is unavailable; try again later"
DATABASE_ERRORS = (OperationalError, InterfaceError)


def database_down(error: BaseException | None) -> bool:
    """Whether ``error`` is the database not answering: a database error that left the
    primary's connection not open (it could not connect, or the server went away)."""
    if not isinstance(error, DATABASE_ERRORS):
        return False
    connection = connections[DEFAULT_DB_ALIAS].connection
    return connection is None or bool(getattr(connection, "closed", False))


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler (``handler500``): the 503 of this module's docstring when the
    database did not answer, else Django's own 500."""
    if not database_down(sys.exc_info()[1]):
        return defaults.server_error(request)
    if is_api(request):
        response: HttpResponse = JsonResponse({"detail": DETAIL}, status=503)
    else:
        response = render(
            request, "kort_site/503.html", {"retry_seconds": RETRY_SECONDS}, status=503
        )
    response["Retry-After"] = str(RETRY_SECONDS)
    return response

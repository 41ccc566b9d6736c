"""Reads on a PostgreSQL read replica (``DATABASE_REPLICA_URL``) that are never stale; writes
on the primary (API.md "Read replicas and connection poolers").

:class:`ReplicaReadsMiddleware` gives each request a state of its own. At the first read of the
request that could go to the replica, the router reads the primary's WAL position
(``pg_current_wal_lsn()``, one cheap query: a request that reads nothing costs nothing) and asks
the replica once whether it has replayed up to it (``pg_last_wal_replay_lsn()``), and keeps the
answer for the request: a replica that has holds every write acknowledged before the request
arrived, so it serves the request's reads; one that has not, the primary does. A read goes to
the primary in any case:

- outside a request (management commands, Celery tasks, tests without the middleware);
- inside a transaction on the primary (the services' locked reads see their own writes);
- inside ``bulk.reads.primary_reads()`` (the reads a write relies on, the credential checks);
- after the request wrote (its own writes are newer than the position it arrived with);
- in the admin, which reads what its staff just wrote through sessions of its own.

A replica that is stopped or unreachable fails the question within its ``connect_timeout`` (2 s
unless its URL names another, kort_site.settings): the
primary serves, one warning is logged per outage (and one line when the replica answers again),
and the replica is not asked again for :data:`RETRY_SECONDS`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.http import HttpRequest, HttpResponse

from bulk.reads import RequestReads, primary_reads_only, request_reads, request_started

REPLICA = "replica"
RETRY_SECONDS = 5.0
"""How long after a failed question the replica is left alone (its requests go to the
primary), so that an unreachable replica costs one timeout per interval, not per request."""
ADMIN_PREFIX = "/admin/"

log = logging.getLogger(__name__)


class _Outage:
    """The replica's health as this process last found it."""

    down = False
    retry_at = 0.0


def _caught_up(primary_lsn: str) -> bool:
    """Whether the replica has replayed the primary's WAL up to ``primary_lsn``; False when it
    cannot say (stopped, unreachable, or not replaying at all)."""
    if _Outage.down and time.monotonic() < _Outage.retry_at:
        return False
    try:
        with connections[REPLICA].cursor() as cursor:
            cursor.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [primary_lsn])
            (replayed,) = cursor.fetchone()
    except DatabaseError as error:
        connections[REPLICA].close()
        _Outage.retry_at = time.monotonic() + RETRY_SECONDS
        if not _Outage.down:
            _Outage.down = True
            log.warning("The read replica does not answer; the primary serves its reads: %s", error)
        return False
    if _Outage.down:
        _Outage.down = False
        log.info("The read replica answers again")
    return bool(replayed)


class ReplicaRouter:
    """The router ``DATABASE_ROUTERS`` names when ``DATABASE_REPLICA_URL`` is set."""

    def db_for_read(self, model, **hints) -> str:
        state = request_reads()
        if (
            state is None
            or state.primary_only
            or state.wrote
            or primary_reads_only()
            or connections[DEFAULT_DB_ALIAS].in_atomic_block
        ):
            if state is not None:
                state.primary_reads += 1
            return DEFAULT_DB_ALIAS
        if state.replica_ready is None:
            state.primary_lsn = primary_position()
            state.replica_ready = state.primary_lsn is not None and _caught_up(state.primary_lsn)
        if state.replica_ready:
            state.replica_reads += 1
            return REPLICA
        state.primary_reads += 1
        return DEFAULT_DB_ALIAS

    def db_for_write(self, model, **hints) -> str:
        state = request_reads()
        if state is not None:
            state.wrote = True
        return DEFAULT_DB_ALIAS

    def allow_relation(self, first, second, **hints) -> bool:
        return True  # one database, copied

    def allow_migrate(self, db, app_label, **hints) -> bool:
        return db == DEFAULT_DB_ALIAS


def primary_position() -> str | None:
    """The primary's current WAL position, or None when it cannot be read (not PostgreSQL, or
    the primary does not answer: then the request's reads all go to it, and fail there as they
    would without a replica)."""
    primary = connections[DEFAULT_DB_ALIAS]
    if primary.vendor != "postgresql":
        return None
    try:
        with primary.cursor() as cursor:
            cursor.execute("SELECT pg_current_wal_lsn()::text")
            (position,) = cursor.fetchone()
    except DatabaseError:
        return None
    return position


class ReplicaReadsMiddleware:
    """Before any middleware that reads (``MIDDLEWARE``): gives the request its
    :class:`~bulk.reads.RequestReads`. Not used when no replica is configured."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        if REPLICA not in settings.DATABASES:
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        state = RequestReads(primary_only=request.path_info.startswith(ADMIN_PREFIX))
        with request_started(state):
            return self.get_response(request)

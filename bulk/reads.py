"""Which database a read goes to when a read replica is configured (``kort_site.db_router``).

The decision has two inputs, both kept here so that the apps can speak to the router without
importing the site:

- :func:`primary_reads`: a block (or a decorated function) whose reads go to the primary
  whatever the replica has replayed. Services use it for the reads a write relies on (an
  idempotent create found by its ``external_id``, a key's claim), and the authentication for
  its credential checks.
- :class:`RequestReads`: the state of one request, set by the replica middleware when the
  request arrives and kept by the router (the primary's WAL position, the replica's answer).
  Outside a request
  (management commands, Celery tasks, tests without the middleware) there is none, and every
  read goes to the primary.

With no replica configured the router is not installed and nothing here changes any read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class RequestReads:
    """What the router knows of one request's reads."""

    primary_only: bool = False
    """Every read of the request goes to the primary (the admin's requests)."""
    primary_lsn: str | None = None
    """The primary's WAL position (``pg_current_wal_lsn()``), read at the request's first read
    that could go to the replica: later than the request's arrival, so every write
    acknowledged before it arrived is within it. None until then, or when it could not be read
    (then every read of the request goes to the primary)."""
    replica_ready: bool | None = None
    """Whether the replica had replayed up to :attr:`primary_lsn`, asked once, right after
    it was read; None until then."""
    wrote: bool = False
    """Whether the request wrote to the primary: its later reads stay there (the replica has
    not replayed a write made after the request arrived)."""
    replica_reads: int = 0
    """Reads the router sent to the replica in this request (its counters, for the tests)."""
    primary_reads: int = 0
    """Reads the router sent to the primary in this request."""


_request: ContextVar[RequestReads | None] = ContextVar("kort_request_reads", default=None)
_primary: ContextVar[bool] = ContextVar("kort_primary_reads", default=False)


def request_reads() -> RequestReads | None:
    """The current request's state, or None outside a request."""
    return _request.get()


@contextmanager
def request_started(state: RequestReads) -> Iterator[RequestReads]:
    """Make ``state`` the current request's for the block (the replica middleware)."""
    token = _request.set(state)
    try:
        yield state
    finally:
        _request.reset(token)


@contextmanager
def primary_reads() -> Iterator[None]:
    """Every read in the block goes to the primary. Usable as a decorator too."""
    token = _primary.set(True)
    try:
        yield
    finally:
        _primary.reset(token)


def primary_reads_only() -> bool:
    """Whether the current code runs inside :func:`primary_reads`."""
    return _primary.get()

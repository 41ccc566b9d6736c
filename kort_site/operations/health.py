"""The readiness checks (API.md "Operating the service"): the database, the replica when
``DATABASE_REPLICA_URL`` names one, and the broker, each asked to answer within
:data:`CHECK_SECONDS`.

Cheap enough to be asked every second by every load balancer: a check is one round trip on a
connection kept for it (``SELECT 1``, Redis ``PING``) and touches no table. It never hangs a
worker: each process keeps one connection of its own per database for the checks, opened with
``connect_timeout`` (libpq's least, 2 s: what a server that never answers a new connection
costs) and a ``tcp_user_timeout`` of one second (a server gone from the network fails within
it); a query with no answer after a second is cancelled from the client, which also covers a
server or a pooler that takes the query and never runs it; checks waiting for that connection
wait at most a second too. The broker's client has one-second socket timeouts.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

import redis
from celery import current_app
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.utils import load_backend
from kombu import Connection

from kort_site.db_router import REPLICA

CHECK_SECONDS = 1
OK = "ok"
POSTGRES_LIMITS = {
    "connect_timeout": 2,
    "tcp_user_timeout": CHECK_SECONDS * 1000,
}
"""Client-side limits only (libpq's, never sent to the server), so that a pooler in front of
PostgreSQL (PgBouncer) takes the connection as it takes the service's own."""
PROBE_QUERY = "SELECT 1"


def readiness() -> dict[str, str]:
    """Each dependency's answer by name (``database``, ``replica`` when configured,
    ``broker``): ``"ok"``, or ``"unavailable: <why>"``. Never raises for a dependency."""
    checks: dict[str, Callable[[], None]] = {"database": lambda: _database(DEFAULT_DB_ALIAS)}
    if REPLICA in settings.DATABASES:
        checks["replica"] = lambda: _database(REPLICA)
    checks["broker"] = _broker
    return {name: _answer(check) for name, check in checks.items()}


def _answer(check: Callable[[], None]) -> str:
    try:
        check()
    except Exception as error:  # any failure of a dependency is its answer
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        return f"unavailable: {first_line}"
    return OK


class _Probe:
    """This process's connection for the checks of one database, used by one thread at a
    time (the request threads of a worker take turns, each waiting at most a second)."""

    def __init__(self, settings_dict: dict) -> None:
        self.settings_dict = settings_dict
        self.lock = threading.Lock()
        self.wrapper: BaseDatabaseWrapper | None = None

    def ask(self, alias: str) -> None:
        if not self.lock.acquire(timeout=CHECK_SECONDS):
            raise TimeoutError(f"an earlier check has waited {CHECK_SECONDS} s for an answer")
        try:
            if self.wrapper is None:
                self.wrapper = _wrapper(self.settings_dict, alias)
            wrapper = self.wrapper
            try:
                with wrapper.cursor() as cursor:
                    late = threading.Timer(CHECK_SECONDS, _cancel, (wrapper,))
                    late.start()
                    try:
                        cursor.execute(PROBE_QUERY)
                    finally:
                        late.cancel()
            except Exception:
                self.wrapper.close()  # broken: the next check connects afresh
                raise
            if not self.settings_dict.get("CONN_MAX_AGE"):
                self.wrapper.close()  # kept only where the database's connections are
        finally:
            self.lock.release()

    def close(self) -> None:
        with self.lock:
            if self.wrapper is not None:
                self.wrapper.close()


_probes: dict[tuple, _Probe] = {}
_probes_lock = threading.Lock()


def _database(alias: str) -> None:
    settings_dict = settings.DATABASES[alias]
    key = (alias, *(settings_dict.get(k) for k in ("ENGINE", "HOST", "PORT", "NAME", "USER")))
    with _probes_lock:
        probe = _probes.setdefault(key, _Probe(settings_dict))
    probe.ask(alias)


def _cancel(wrapper: BaseDatabaseWrapper) -> None:
    """Stop the query running on ``wrapper``'s connection: it raises in the waiting thread."""
    connection = wrapper.connection
    if connection is None:
        return
    if hasattr(connection, "cancel_safe"):  # psycopg
        connection.cancel_safe(timeout=CHECK_SECONDS)
    else:  # sqlite3
        connection.interrupt()


def close_connections() -> None:
    """Close this process's connections for the checks (each opens again when next asked)."""
    with _probes_lock:
        probes = list(_probes.values())
    for probe in probes:
        probe.close()


def _wrapper(settings_dict: dict, alias: str) -> BaseDatabaseWrapper:
    """A connection of the checks' own to the database of ``settings_dict``, with time limits
    on PostgreSQL; shared by the threads of this process (one at a time, under the probe's
    lock)."""
    settings_dict = copy.deepcopy(settings_dict)
    if settings_dict["ENGINE"] == "django.db.backends.postgresql":
        options = settings_dict.setdefault("OPTIONS", {})
        options.update(POSTGRES_LIMITS)
    wrapper = load_backend(settings_dict["ENGINE"]).DatabaseWrapper(settings_dict, alias)
    wrapper.inc_thread_sharing()
    return wrapper


_redis_clients: dict[str, redis.Redis] = {}


def _broker() -> None:
    url = current_app.conf.broker_write_url or current_app.conf.broker_url
    scheme = urlsplit(url).scheme
    if scheme == "memory":
        return  # the embedded default: tasks run in-process, there is no broker to ask
    if scheme in ("redis", "rediss"):
        client = _redis_clients.get(url)
        if client is None:
            client = _redis_clients.setdefault(
                url,
                redis.Redis.from_url(
                    url, socket_timeout=CHECK_SECONDS, socket_connect_timeout=CHECK_SECONDS
                ),
            )
        client.ping()
        return
    with Connection(url, connect_timeout=CHECK_SECONDS) as connection:
        connection.ensure_connection(max_retries=1, timeout=CHECK_SECONDS)

"""Reads on a PostgreSQL read replica (``DATABASE_REPLICA_URL``), writes on the primary.

A read goes to the replica (the alias ``replica``) unless it runs inside a transaction on the
primary: services read what they are about to write in their own transaction, and must see
their own writes and take their locks there. So the replica serves the public reads of the API
(leaderboards, profiles, histories), which may lag the primary by the replica's delay; every
write, every locked read and every migration uses the primary.
"""

from django.db import DEFAULT_DB_ALIAS, connections

REPLICA = "replica"


class ReplicaRouter:
    """The router ``DATABASE_ROUTERS`` names when ``DATABASE_REPLICA_URL`` is set."""

    def db_for_read(self, model, **hints) -> str:
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return DEFAULT_DB_ALIAS
        return REPLICA

    def db_for_write(self, model, **hints) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, first, second, **hints) -> bool:
        return True  # one database, copied

    def allow_migrate(self, db, app_label, **hints) -> bool:
        return db == DEFAULT_DB_ALIAS

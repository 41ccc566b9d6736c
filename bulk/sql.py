"""SQL that reads alike on PostgreSQL and SQLite, where the two spell it differently."""

from __future__ import annotations

import json
from collections.abc import Collection


def id_in(column: str, ids: Collection[int], vendor: str) -> tuple[str, list]:
    """The condition ``column`` is one of ``ids``, and its one parameter: an array on
    PostgreSQL (``= ANY``: one plan, whatever the number of ids), a JSON list on SQLite.
    ``column`` is SQL, not a value."""
    if vendor == "postgresql":
        return f"{column} = ANY(%s)", [list(ids)]
    return f"{column} IN (SELECT value FROM json_each(%s))", [json.dumps(list(ids))]

"""SQL that reads alike on PostgreSQL and SQLite, where the two spell it differently."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence


def id_in(column: str, ids: Collection[int], vendor: str) -> tuple[str, list]:
    """The condition ``column`` is one of ``ids``, and its one parameter: an array on
    PostgreSQL (``= ANY``: one plan, whatever the number of ids), a JSON list on SQLite.
    ``column`` is SQL, not a value."""
    if vendor == "postgresql":
        return f"{column} = ANY(%s)", [list(ids)]
    return f"{column} IN (SELECT value FROM json_each(%s))", [json.dumps(list(ids))]


def int_rows(names: Sequence[str], rows: Sequence[Sequence[int]], vendor: str) -> tuple[str, list]:
    """A table ``v`` of integer columns ``names`` holding ``rows``, to read ``FROM``, and its
    parameters: one array per column on PostgreSQL (``unnest``), one JSON list on SQLite."""
    if vendor == "postgresql":
        arrays = ", ".join(["CAST(%s AS bigint[])"] * len(names))
        columns = [[row[n] for row in rows] for n in range(len(names))]
        return f"unnest({arrays}) AS v ({', '.join(names)})", columns
    picked = ", ".join(f"json_extract(value, '$[{n}]') AS {name}" for n, name in enumerate(names))
    return f"(SELECT {picked} FROM json_each(%s)) AS v", [json.dumps([list(r) for r in rows])]

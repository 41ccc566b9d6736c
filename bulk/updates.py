"""A change's writes as plain values, sent together in one round trip on PostgreSQL (see the
package's docstring).

:class:`Insert` writes rows of a model; a row meeting a stored one on a unique index may be
skipped, replace the stored row's columns, or add to them (:class:`Upsert`): the adding
upsert, and any upsert on a partial unique index, are writes the ORM's ``bulk_create`` does not
make. :class:`Update` sets the rows of some keys each to its own values (set, added, or the
higher kept), :class:`Delete` removes rows by key. The ORM makes those two, but one ``execute``
a statement: :func:`run` renders these values as SQL and sends a finalization's writes
(KORT_RULES §7, §8, §12) to the server at once. Every other write uses the ORM.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, ForeignKey, Model

Rendered = tuple[str, list[Any], int]
"""One statement's SQL, its parameters and the values it carries: what bounds a round trip."""


def _quoted(name: str) -> str:
    """A table or column name as SQL (standard double quotes: PostgreSQL and SQLite)."""
    return f'"{name}"'


@dataclass(frozen=True)
class Upsert:
    """What an inserted row does on meeting a stored one on the unique index of the columns
    ``key`` (``where``: a partial index's condition, SQL over the columns): without
    ``columns``, nothing (it is skipped); else the stored row takes the row's ``columns`` or,
    with ``adding``, adds them to its own (a negative amount takes a row back down)."""

    key: Sequence[str]
    columns: Sequence[str] = ()
    where: str = ""
    adding: bool = False

    def clause(self, table: str) -> str:
        """The ``ON CONFLICT`` clause of an ``INSERT INTO table`` (``table`` quoted)."""
        target = f" ({', '.join(map(_quoted, self.key))})"
        where = f" WHERE {self.where}" if self.where else ""
        sets = ", ".join(
            f"{q} = {table}.{q} + excluded.{q}" if self.adding else f"{q} = excluded.{q}"
            for q in map(_quoted, self.columns)
        )
        return f" ON CONFLICT{target}{where} DO " + (f"UPDATE SET {sets}" if sets else "NOTHING")


@dataclass(frozen=True)
class Insert:
    """``INSERT`` ``rows`` of ``model`` (keys: the names of concrete fields; the auto primary
    key left to the database; a column no row gives takes its field's default), one statement
    per :data:`INSERT_PARAMS` values, and ``on_conflict`` what a row meeting a stored one does
    (none: the insert fails). On PostgreSQL the rows are one array per column (``SELECT FROM
    unnest(...)``, in the order given), so the text is the same whatever the rows."""

    model: type[Model]
    rows: Sequence[Mapping[str, Any]]
    on_conflict: Upsert | None = None

    def rendered(self, connection: BaseDatabaseWrapper) -> list[Rendered]:
        given = frozenset(column for row in self.rows for column in row)
        passed, columns, marks, unnested = _insert_layout(self.model, connection.alias, given)
        table = _quoted(self.model._meta.db_table)
        conflict = "" if self.on_conflict is None else self.on_conflict.clause(table)
        per_statement = max(1, INSERT_PARAMS // max(1, len(passed)))
        statements = []
        for start in range(0, len(self.rows), per_statement):
            batch = self.rows[start : start + per_statement]
            values = [
                _saved(f, [row[c] if c in row else f.get_default() for row in batch], connection)
                for c, f in passed
            ]
            if unnested and passed:
                source, params = unnested, values
            else:
                source = f"VALUES {', '.join([marks] * len(batch))}"
                params = [value for row in zip(*values, strict=True) for value in row]
            sql = f"INSERT INTO {table} ({columns}) {source}{conflict}"
            statements.append((sql, params, len(batch) * len(passed)))
        return statements


@functools.cache
def _insert_layout(
    model: type[Model], alias: str, given: frozenset[str]
) -> tuple[list[tuple[str, Field]], str, str, str]:
    """The columns of inserts of ``model`` on the database ``alias`` whose rows give the
    columns ``given``, worked out once: those passed as parameters, each with its field (a
    column not given whose default is an integer is written as that number), every column
    written as SQL, one row's ``VALUES`` tuple and, on PostgreSQL, the ``SELECT`` from one
    array per passed column."""
    connection = connections[alias]
    fields = [
        (str(field.column), field)
        for field in model._meta.concrete_fields
        if not (field.primary_key and field.get_internal_type() in AUTO_FIELDS)
    ]
    constant = {c: f.default for c, f in fields if c not in given and type(f.default) is int}
    passed = [(column, field) for column, field in fields if column not in constant]
    unnested = ""
    if connection.vendor == "postgresql":
        arrays = ", ".join(f"CAST(%s AS {field.db_type(connection)}[])" for _, field in passed)
        chosen = ", ".join(
            str(constant[c]) if c in constant else f"u.{_quoted(c)}" for c, _ in fields
        )
        named = ", ".join(_quoted(column) for column, _ in passed)
        unnested = f"SELECT {chosen} FROM unnest({arrays}) AS u ({named})"
    columns = ", ".join(_quoted(column) for column, _ in fields)
    marks = "(" + ", ".join(str(constant.get(column, "%s")) for column, _ in fields) + ")"
    return passed, columns, marks, unnested


@dataclass(frozen=True)
class Update:
    """``UPDATE`` the rows of ``model`` whose columns ``key`` hold the first values of one of
    ``rows`` (and each column of ``where`` its value): each of ``columns`` takes the row's next
    value, by its mode: ``"="`` set to it, ``"+"`` raised by it, ``"max"`` the higher of the
    two. Nothing without rows or columns. The names are the model's columns, never input."""

    model: type[Model]
    key: Sequence[str]
    columns: Mapping[str, str]
    rows: Sequence[Sequence[Any]]
    where: Mapping[str, Any] = field(default_factory=dict)

    def rendered(self, connection: BaseDatabaseWrapper) -> list[Rendered]:
        if not self.rows or not self.columns:
            return []
        names = (*self.key, *self.columns)
        sql, first, marks = _update_layout(
            self.model, connection.alias, names, tuple(self.columns.values()), tuple(self.where)
        )
        fields = [_field(self.model, name) for name in names]
        per_statement = max(1, INSERT_PARAMS // len(names))
        statements = []
        for start in range(0, len(self.rows), per_statement):
            batch = self.rows[start : start + per_statement]
            columns = [
                _saved(f, [row[n] for row in batch], connection) for n, f in enumerate(fields)
            ]
            params = [value for row in zip(*columns, strict=True) for value in row]
            rows = ", ".join([first, *[marks] * (len(batch) - 1)])
            statements.append((sql.format(rows=rows), [*params, *self.where.values()], len(params)))
        return statements


@functools.cache
def _update_layout(
    model: type[Model],
    alias: str,
    names: tuple[str, ...],
    modes: tuple[str, ...],
    where: tuple[str, ...],
) -> tuple[str, str, str]:
    """The text of an :class:`Update` of ``model`` on the database ``alias`` (its rows left as
    ``{rows}``), its first row's tuple (on PostgreSQL, cast to the columns' types) and the
    other rows' tuple."""
    connection = connections[alias]
    table = _quoted(model._meta.db_table)
    key = len(names) - len(modes)
    higher = "MAX" if connection.vendor == "sqlite" else "GREATEST"
    sets = {
        "=": "{c} = v.{c}",
        "+": f"{{c}} = {table}.{{c}} + v.{{c}}",
        "max": f"{{c}} = {higher}({table}.{{c}}, v.{{c}})",
    }
    assigned = ", ".join(
        sets[mode].format(c=_quoted(n)) for n, mode in zip(names[key:], modes, strict=True)
    )
    conditions = [f"{table}.{_quoted(n)} = v.{_quoted(n)}" for n in names[:key]]
    conditions += [f"{table}.{_quoted(n)} = %s" for n in where]
    marks = "(" + ", ".join(["%s"] * len(names)) + ")"
    first = marks
    if connection.vendor == "postgresql":
        types = [_field(model, name).db_type(connection) for name in names]
        first = "(" + ", ".join(f"CAST(%s AS {t})" for t in types) + ")"
    sql = (
        f"WITH v ({', '.join(map(_quoted, names))}) AS (VALUES {{rows}}) UPDATE {table} "
        f"SET {assigned} FROM v WHERE {' AND '.join(conditions)}"
    )
    return sql, first, marks


def _field(model: type[Model], name: str) -> Field:
    concrete = model._meta.get_field(name)
    assert isinstance(concrete, Field), f"{model.__name__}.{name} is not a column"
    return concrete


@dataclass(frozen=True)
class Delete:
    """``DELETE`` the rows of ``model`` whose column ``key`` is one of ``keys``; nothing if
    there are none."""

    model: type[Model]
    key: str
    keys: Sequence[int]

    def rendered(self, connection: BaseDatabaseWrapper) -> list[Rendered]:
        if not self.keys:
            return []
        marks = ", ".join(["%s"] * len(self.keys))
        table = _quoted(self.model._meta.db_table)
        sql = f"DELETE FROM {table} WHERE {_quoted(self.key)} IN ({marks})"
        return [(sql, sorted(self.keys), len(self.keys))]


Statement = Insert | Update | Delete
"""A write :func:`run` runs."""


def run(statements: Iterable[Statement]) -> None:
    """Run ``statements`` in their order, each on the database that writes of its model go
    to, inside the caller's transaction.

    On PostgreSQL, consecutive statements on one database go to the server together, joined
    with ``;`` in one ``execute``: one round trip for up to :data:`INSERT_PARAMS` values. That
    takes psycopg's client-side binding, which Django's backend uses unless ``OPTIONS`` sets
    ``server_side_binding`` (docs/scaling.md): each statement is bound with its own parameters
    (``mogrify``, whose parse of a statement's text psycopg keeps for the next call) and the
    bound statements are sent together. With server-side binding, and on SQLite, one
    ``execute`` a statement."""
    trips: list[tuple[str, list[Rendered]]] = []
    carried = 0
    for statement in statements:
        alias = router.db_for_write(statement.model)
        connection = connections[alias]
        options = connection.settings_dict["OPTIONS"]
        joins = connection.vendor == "postgresql" and options.get("server_side_binding") is not True
        for rendered in statement.rendered(connection):
            if joins and trips and trips[-1][0] == alias and carried + rendered[2] <= INSERT_PARAMS:
                trips[-1][1].append(rendered)
                carried += rendered[2]
            else:
                trips.append((alias, [rendered]))
                carried = rendered[2]
    for alias, rendered_list in trips:
        with connections[alias].cursor() as cursor:
            if len(rendered_list) == 1:
                cursor.execute(rendered_list[0][0], rendered_list[0][1])
            else:
                cursor.execute(
                    "; ".join(cursor.mogrify(sql, params) for sql, params, _ in rendered_list)
                )


def _saved(field: Field, values: list[Any], connection: BaseDatabaseWrapper) -> list[Any]:
    """``values`` of the model's ``field`` as it saves them on ``connection``; an ``int`` of
    an integer column (a foreign key to an integer key too) and a ``str`` of a text column
    are saved as they are (the conversion only checks them), so they skip it."""
    column = field.target_field if isinstance(field, ForeignKey) else field
    plain = PLAIN_TYPES.get(column.get_internal_type())
    return [
        value if type(value) is plain else field.get_db_prep_save(value, connection)
        for value in values
    ]


INSERT_PARAMS = 30_000
"""Values one statement of many rows carries at most, and one round trip of :func:`run`: a
parameter each where each value is one (SQLite takes 32,766), the arrays' lengths together in
PostgreSQL's inserts."""
AUTO_FIELDS = ("AutoField", "BigAutoField", "SmallAutoField")
"""Primary keys the database numbers itself."""
PLAIN_TYPES = {
    **dict.fromkeys(
        (
            "IntegerField",
            "BigIntegerField",
            "SmallIntegerField",
            "PositiveIntegerField",
            "PositiveBigIntegerField",
            "PositiveSmallIntegerField",
            *AUTO_FIELDS,
        ),
        int,
    ),
    "CharField": str,
}
"""The Python type whose values a column of each field type saves as they are."""

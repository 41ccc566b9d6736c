"""A change's writes as plain values, run together: one round trip on PostgreSQL.

:class:`Insert` writes rows that may skip, replace or add to a stored row they meet
(:class:`Upsert`: ``bulk_create`` neither adds nor names a partial index); :class:`Update` sets
rows by key, each to its own values, :class:`Delete` removes them: the ORM makes those two, but
one ``execute`` each. Every value is a parameter."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
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
    ``columns`` nothing (it is skipped); else the stored row takes the row's ``columns`` or,
    with ``adding``, adds them to its own (a negative amount takes a row back down)."""

    key: Sequence[str]
    columns: Sequence[str] = ()
    where: str = ""
    adding: bool = False

    def clause(self, table: str) -> str:
        """The ``ON CONFLICT`` clause of an ``INSERT INTO table`` (``table`` quoted)."""
        where = f" WHERE {self.where}" if self.where else ""
        sets = ", ".join(
            f"{q} = {table}.{q} + excluded.{q}" if self.adding else f"{q} = excluded.{q}"
            for q in map(_quoted, self.columns)
        )
        action = f"UPDATE SET {sets}" if sets else "NOTHING"
        return f" ON CONFLICT ({', '.join(map(_quoted, self.key))}){where} DO {action}"


@dataclass(frozen=True)
class Insert:
    """``INSERT`` ``rows`` of ``model`` (keys: column names of concrete fields; the auto
    primary key is left to the database, a column a row does not give takes its field's
    default), ``on_conflict`` telling what a row meeting a stored one does (None: the insert
    fails). A column no row gives whose default is an integer is written as that number."""

    model: type[Model]
    rows: Sequence[Mapping[str, Any]]
    on_conflict: Upsert | None = None

    def rendered(self, connection: BaseDatabaseWrapper) -> list[Rendered]:
        given = frozenset(column for row in self.rows for column in row)
        passed, written, chosen = _insert_layout(self.model, given)
        layout = _columns(self.model, connection.alias, passed)
        columns = [
            [row[c] if c in row else f.get_default() for row in self.rows]
            for c, (f, _) in zip(passed, layout[0], strict=True)
        ]
        table = _quoted(self.model._meta.db_table)
        conflict = "" if self.on_conflict is None else self.on_conflict.clause(table)
        insert = f"INSERT INTO {table} ({written}) SELECT {chosen} FROM v WHERE true{conflict}"
        return _statements(layout, columns, connection, insert)


@functools.cache
def _insert_layout(model: type[Model], given: frozenset[str]) -> tuple[tuple[str, ...], str, str]:
    """For inserts of ``model`` whose rows give the columns ``given``: the columns passed as
    values (the others' default is an integer), every column written and what each takes."""
    written = [
        (str(f.column), f)
        for f in model._meta.concrete_fields
        if not (f.primary_key and f.get_internal_type() in AUTO_FIELDS)
    ]
    constant = {c: f.default for c, f in written if c not in given and type(f.default) is int}
    passed = tuple(column for column, _ in written if column not in constant)
    chosen = ", ".join(str(constant[c]) if c in constant else f"v.{_quoted(c)}" for c, _ in written)
    return passed, ", ".join(_quoted(column) for column, _ in written), chosen


@dataclass(frozen=True)
class Update:
    """``UPDATE`` the rows of ``model`` whose columns ``key`` hold the first values of one of
    ``rows``: each of ``columns`` takes the row's next value by its mode, ``"="`` set to it,
    ``"+"`` raised by it, ``"max"`` the higher of the two. Nothing without rows or columns."""

    model: type[Model]
    key: Sequence[str]
    columns: Mapping[str, str]
    rows: Sequence[Sequence[Any]]

    def rendered(self, connection: BaseDatabaseWrapper) -> list[Rendered]:
        if not self.rows or not self.columns:
            return []
        table = _quoted(self.model._meta.db_table)
        higher = "MAX" if connection.vendor == "sqlite" else "GREATEST"
        sets = ", ".join(
            MODES[mode].format(c=_quoted(column), t=table, higher=higher)
            for column, mode in self.columns.items()
        )
        matched = [f"{table}.{_quoted(c)} = v.{_quoted(c)}" for c in self.key]
        update = f"UPDATE {table} SET {sets} FROM v WHERE {' AND '.join(matched)}"
        layout = _columns(self.model, connection.alias, (*self.key, *self.columns))
        columns = list(zip(*self.rows, strict=True))
        return _statements(layout, columns, connection, update)


MODES = {"=": "{c} = v.{c}", "+": "{c} = {t}.{c} + v.{c}", "max": "{c} = {higher}({t}.{c}, v.{c})"}
"""What an :class:`Update`'s column takes by its mode, from the row's value ``v``."""


def _statements(
    layout: Layout,
    columns: Sequence[Sequence[Any]],
    connection: BaseDatabaseWrapper,
    statement: str,
) -> list[Rendered]:
    """``statement`` reading a table ``v`` of the columns of ``layout`` (:func:`_columns`)
    holding ``columns`` (the values of each, saved as its field saves them), one per
    :data:`INSERT_PARAMS` values. On PostgreSQL ``v`` is one array per
    column (``unnest``, rows in their order), so the text is the same whatever the rows."""
    fields, source, marks = layout
    per_statement = max(1, INSERT_PARAMS // max(1, len(fields)))
    statements = []
    for start in range(0, len(columns[0]) if columns else 0, per_statement):
        values = [
            [
                v if type(v) is plain else f.get_db_prep_save(v, connection)
                for v in column[start : start + per_statement]
            ]
            for (f, plain), column in zip(fields, columns, strict=True)
        ]
        rows = len(values[0])
        if marks:
            params = [v for row in zip(*values, strict=True) for v in row]
        else:  # an integer column as an array literal, which psycopg would quote value by value
            params = [
                "{" + ",".join(map(str, c)) + "}" if p is int and None not in c else c
                for (_, p), c in zip(fields, values, strict=True)
            ]
        sql = source.format(rows=", ".join([marks] * rows)) if marks else source
        statements.append((f"{sql} {statement}", params, rows * len(fields)))
    return statements


Layout = tuple[list[tuple[Field, type | None]], str, str]
"""What :func:`_columns` works out."""


@functools.cache
def _columns(model: type[Model], alias: str, names: tuple[str, ...]) -> Layout:
    """The fields of the columns ``names`` of ``model`` with :func:`_plain`, the ``WITH v`` of
    their values on the database ``alias`` (SQLite: ``VALUES`` of ``{rows}``, each the tuple
    last returned), worked out once: the ORM finds column types slower than a statement runs."""
    fields = [f for f in map(model._meta.get_field, names) if isinstance(f, Field)]
    assert len(fields) == len(names), f"{model.__name__}: {names} are not all columns"
    typed = [(f, _plain(f)) for f in fields]
    with_v = f"WITH v ({', '.join(map(_quoted, names))}) AS"
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return typed, f"{with_v} (VALUES {{rows}})", "(" + ", ".join(["%s"] * len(names)) + ")"
    arrays = ", ".join(f"CAST(%s AS {f.db_type(connection)}[])" for f in fields)
    return typed, f"{with_v} (SELECT * FROM unnest({arrays}))", ""


def _plain(field: Field) -> type | None:
    """The type of the values ``field`` saves as they are, as its conversion only checks them:
    ``int`` for an integer column (a foreign key to one too), ``str`` for a text column."""
    kind = (field.target_field if isinstance(field, ForeignKey) else field).get_internal_type()
    integer = kind.endswith(("IntegerField", "AutoField"))
    return int if integer else str if kind == "CharField" else None


@dataclass(frozen=True)
class Delete:
    """``DELETE`` the rows of ``model`` whose column ``key`` is one of ``keys`` (if any)."""

    model: type[Model]
    key: str
    keys: Sequence[int]

    def rendered(self, connection: BaseDatabaseWrapper) -> list[Rendered]:
        marks = ", ".join(["%s"] * len(self.keys))
        sql = f"DELETE FROM {_quoted(self.model._meta.db_table)} WHERE {_quoted(self.key)} IN"
        return [(f"{sql} ({marks})", sorted(self.keys), len(self.keys))] if self.keys else []


Statement = Insert | Update | Delete
"""A write :func:`run` runs."""


def run(statements: Iterable[Statement]) -> None:
    """Run ``statements`` in order, each on the database its model is written to, in the
    caller's transaction. On PostgreSQL with client-side binding (Django's default; see
    docs/scaling.md) consecutive statements on one database are each bound (``mogrify``) and
    sent joined with ``;`` in one ``execute``, up to :data:`INSERT_PARAMS` values a round
    trip; else one ``execute`` a statement."""
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
    for alias, trip in trips:
        with connections[alias].cursor() as cursor:
            if len(trip) == 1:
                cursor.execute(trip[0][0], trip[0][1])
            else:
                cursor.execute("; ".join(cursor.mogrify(sql, params) for sql, params, _ in trip))


INSERT_PARAMS = 30_000
"""Values one statement carries at most, and one round trip of :func:`run`: a parameter each
where each value is one (SQLite takes 32,766), the arrays' lengths together on PostgreSQL."""
AUTO_FIELDS = ("AutoField", "BigAutoField", "SmallAutoField")
"""Primary keys the database numbers itself."""

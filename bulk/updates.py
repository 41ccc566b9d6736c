"""Writes of many rows in one statement, and a sequence of them in one round trip (see the
package's docstring).

A statement is a plain value: :class:`Insert` (rows of a model; the rows already there may be
skipped, or added to or replaced, :class:`Upsert`), :class:`Update` (the rows of some keys,
each column set to an expression over the row) or :class:`Delete` (the rows of some keys). An
expression is a plain value too: one value for every row (:class:`FieldValue`), a value chosen
by the row's key (:class:`ByKey`), the column raised by an amount chosen by the row's key
(:class:`AddedByKey`), the higher of the column and an expression (:class:`AtLeast`). Whoever
decides a write builds the values; :func:`run` renders them as SQL for the database their model
is written to and runs them in order, in the caller's transaction: on PostgreSQL, as few round
trips as the values allow.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, ForeignKey, Model

Expression = tuple[str, list[Any]]
"""An SQL expression and its parameters."""


def _quoted(name: str) -> str:
    """A table or column name as SQL (standard double quotes: PostgreSQL and SQLite)."""
    return f'"{name}"'


@dataclass(frozen=True)
class FieldValue:
    """``value`` in every row, converted as the assigned column's field saves it."""

    value: Any

    def sql(self, column: Field, connection: BaseDatabaseWrapper) -> Expression:
        return "%s", [column.get_db_prep_save(self.value, connection)]


@dataclass(frozen=True)
class ByKey:
    """The integer ``values[k]`` for the row whose column ``key`` is ``k`` (NULL for any other
    row, which the statement's keys must not include)."""

    key: str
    values: Mapping[int, int]

    def sql(self, column: Field, connection: BaseDatabaseWrapper) -> Expression:
        whens = " ".join(["WHEN %s THEN CAST(%s AS integer)"] * len(self.values))
        params = [v for item in sorted(self.values.items()) for v in item]
        return f"CASE {_quoted(self.key)} {whens} END", params


@dataclass(frozen=True)
class AddedByKey:
    """The assigned column plus the amount of the row's group: ``amounts`` is ``(amount,
    keys)`` pairs, each amount added to the rows whose column ``key`` is in its keys (0 to any
    other)."""

    key: str
    amounts: Sequence[tuple[int, Collection[int]]]

    def sql(self, column: Field, connection: BaseDatabaseWrapper) -> Expression:
        whens = []
        params: list[Any] = []
        for amount, keys in self.amounts:
            marks = ", ".join(["%s"] * len(keys))
            whens.append(f"WHEN {_quoted(self.key)} IN ({marks}) THEN CAST(%s AS integer)")
            params += [*sorted(keys), amount]
        return f"{_quoted(str(column.column))} + CASE {' '.join(whens)} ELSE 0 END", params


@dataclass(frozen=True)
class AtLeast:
    """The higher of the assigned column and ``value`` (``GREATEST``; two-argument ``MAX`` on
    SQLite)."""

    value: ByKey | FieldValue

    def sql(self, column: Field, connection: BaseDatabaseWrapper) -> Expression:
        sql, params = self.value.sql(column, connection)
        function = "MAX" if connection.vendor == "sqlite" else "GREATEST"
        return f"{function}({_quoted(str(column.column))}, {sql})", params


Assigned = FieldValue | ByKey | AddedByKey | AtLeast
"""What an :class:`Update` sets a column to."""


@dataclass(frozen=True)
class Rendered:
    """One statement as SQL with its parameters, and the number of ``values`` it carries (a
    parameter each, or the arrays' lengths together): what bounds a round trip."""

    sql: str
    params: list[Any]
    values: int


@dataclass(frozen=True)
class Update:
    """``UPDATE`` the table of ``model`` where column ``key`` is one of ``keys`` (with a tuple
    of columns, ``keys`` are tuples of their values) and each column of ``where`` equals its
    value, setting each column of ``assignments`` to its expression. Nothing if there are no
    keys or no assignments. Column names are the model's, never input."""

    model: type[Model]
    key: str | tuple[str, ...]
    keys: Collection[Any]
    assignments: Mapping[str, Assigned]
    where: Mapping[str, Any] = field(default_factory=dict)

    def rendered(self, connection: BaseDatabaseWrapper) -> list[Rendered]:
        if not self.keys or not self.assignments:
            return []
        sets = []
        params: list[Any] = []
        for name, expression in self.assignments.items():
            column = _column(self.model, name)
            sql, args = expression.sql(column, connection)
            sets.append(f"{_quoted(str(column.column))} = {sql}")
            params += args
        keys = sorted(self.keys)
        if isinstance(self.key, str):
            conditions = [f"{_quoted(self.key)} IN ({', '.join(['%s'] * len(keys))})"]
            params += keys
        else:
            row = "(" + ", ".join(["%s"] * len(self.key)) + ")"
            columns = ", ".join(map(_quoted, self.key))
            conditions = [f"({columns}) IN (VALUES {', '.join([row] * len(keys))})"]
            params += [value for key in keys for value in key]
        for name, value in self.where.items():
            conditions.append(f"{_quoted(name)} = %s")
            params.append(value)
        table = _quoted(self.model._meta.db_table)
        sql = f"UPDATE {table} SET {', '.join(sets)} WHERE {' AND '.join(conditions)}"
        return [Rendered(sql, params, len(params))]


def _column(model: type[Model], name: str) -> Field:
    concrete = model._meta.get_field(name)
    assert isinstance(concrete, Field), f"{model.__name__}.{name} is not a column"
    return concrete


@dataclass(frozen=True)
class Insert:
    """``INSERT`` ``rows`` of ``model``, one statement per :data:`INSERT_PARAMS` values, each
    row's columns not given taking the model field's default; with ``skip_existing``, rows
    that would break a unique constraint are left out (``ON CONFLICT DO NOTHING``). Keys are
    column names of concrete fields; the auto primary key is left to the database.

    A column no row gives whose default is an integer (the statistics' counts) is written as
    that number, so the statement has one parameter per given value only (and its text stays
    the same from call to call).

    With ``replacing``, a row that meets an existing one on the unique index ``replacing``
    names updates that row's columns ``replacing.columns`` instead (``ON CONFLICT ... DO
    UPDATE``, PostgreSQL and SQLite): the existing row keeps its key.

    On PostgreSQL the rows are one array per column (``INSERT ... SELECT FROM unnest(...)``,
    the rows inserted in the order given): the statement's text and its parameters are as
    many whatever the rows, so the driver builds the text once; on SQLite (and for rows that
    give no column), one ``VALUES`` tuple a row, one parameter a value."""

    model: type[Model]
    rows: Sequence[Mapping[str, Any]]
    skip_existing: bool = False
    replacing: Upsert | None = None

    def rendered(self, connection: BaseDatabaseWrapper) -> list[Rendered]:
        given = frozenset(column for row in self.rows for column in row)
        layout = _insert_layout(self.model, connection.alias, given)
        passed = layout.passed
        conflict = " ON CONFLICT DO NOTHING" if self.skip_existing else ""
        table = _quoted(self.model._meta.db_table)
        if self.replacing is not None:
            conflict = self.replacing.clause(table)
        unnested = layout.unnested if connection.vendor == "postgresql" and passed else None
        per_statement = max(1, INSERT_PARAMS // max(1, len(passed)))
        statements = []
        for start in range(0, len(self.rows), per_statement):
            batch = self.rows[start : start + per_statement]
            values = [
                _saved(
                    field,
                    [row[column] if column in row else field.get_default() for row in batch],
                    connection,
                )
                for column, field in passed
            ]
            if unnested is not None:
                source, params = unnested, values
            else:
                source = f"VALUES {', '.join([layout.marks] * len(batch))}"
                params = [value for row in zip(*values, strict=True) for value in row]
            sql = f"INSERT INTO {table} ({layout.columns}) {source}{conflict}"
            statements.append(Rendered(sql, params, len(batch) * len(passed)))
        return statements


@dataclass(frozen=True)
class _InsertLayout:
    """The columns of an :class:`Insert` of one model whose rows give the columns ``given``,
    on one database: the names as SQL of every column written (``columns``, the auto primary
    key left out), the columns passed as parameters (``passed``, each with its field: the
    others are written as their integer default), one row's ``VALUES`` tuple (``marks``) and,
    on PostgreSQL, the ``SELECT`` from one array per passed column (``unnested``)."""

    passed: list[tuple[str, Field]]
    columns: str
    marks: str
    unnested: str


@functools.cache
def _insert_layout(model: type[Model], alias: str, given: frozenset[str]) -> _InsertLayout:
    """The :class:`_InsertLayout` of inserts of ``model`` on the database ``alias`` whose rows
    give the columns ``given``: worked out once, since the column types it names take the ORM
    longer to find than the statement takes to send. A column not given whose default is an
    integer constant (a callable default is called for each row) is written as that number."""
    connection = connections[alias]
    fields = [
        (str(field.column), field)
        for field in model._meta.concrete_fields
        if not (field.primary_key and field.get_internal_type() in AUTO_FIELDS)
    ]
    constant = {
        column: field.default
        for column, field in fields
        if column not in given and type(field.default) is int
    }
    passed = [(column, field) for column, field in fields if column not in constant]
    unnested = ""
    if connection.vendor == "postgresql":
        arrays = ", ".join(f"CAST(%s AS {field.db_type(connection)}[])" for _, field in passed)
        named = ", ".join(_quoted(column) for column, _ in passed)
        chosen = ", ".join(
            str(constant[column]) if column in constant else f"u.{_quoted(column)}"
            for column, _ in fields
        )
        unnested = f"SELECT {chosen} FROM unnest({arrays}) AS u ({named})"
    return _InsertLayout(
        passed=passed,
        columns=", ".join(_quoted(column) for column, _ in fields),
        marks="(" + ", ".join(str(constant.get(column, "%s")) for column, _ in fields) + ")",
        unnested=unnested,
    )


@dataclass(frozen=True)
class Delete:
    """``DELETE`` the rows of ``model`` whose column ``key`` is one of ``keys``; nothing if
    there are none."""

    model: type[Model]
    key: str
    keys: Collection[int]

    def rendered(self, connection: BaseDatabaseWrapper) -> list[Rendered]:
        if not self.keys:
            return []
        keys = sorted(self.keys)
        table = _quoted(self.model._meta.db_table)
        marks = ", ".join(["%s"] * len(keys))
        return [
            Rendered(f"DELETE FROM {table} WHERE {_quoted(self.key)} IN ({marks})", keys, len(keys))
        ]


Statement = Insert | Update | Delete
"""A write :func:`run` runs."""


def run(statements: Iterable[Statement]) -> None:
    """Run ``statements`` in their order, each on the database that writes of its model go
    to, inside the caller's transaction.

    On PostgreSQL, consecutive statements on one database go to the server together, joined
    with ``;`` in one ``execute``: one round trip for up to :data:`INSERT_PARAMS` values (a
    finalization's writes, KORT_RULES §7, §8, §12, all at once). That takes psycopg's
    client-side binding, which Django's backend uses unless ``OPTIONS`` sets
    ``server_side_binding`` (docs/scaling.md: fine behind PgBouncer in transaction mode):
    each statement is bound with its own parameters (``mogrify``, whose parse of a
    statement's text psycopg keeps for the next call, where the whole joined text is too
    long for it to keep), and the bound statements are sent together. With server-side
    binding, and on SQLite, one ``execute`` a statement."""
    trips: list[_Trip] = []
    for statement in statements:
        alias = router.db_for_write(statement.model)
        connection = connections[alias]
        joins = _joins_statements(connection)
        for rendered in statement.rendered(connection):
            last = trips[-1] if trips else None
            if (
                joins
                and last is not None
                and last.alias == alias
                and last.values + rendered.values <= INSERT_PARAMS
            ):
                last.add(rendered)
            else:
                trips.append(_Trip(alias, [rendered], rendered.values))
    for trip in trips:
        with connections[trip.alias].cursor() as cursor:
            if len(trip.statements) == 1:
                cursor.execute(trip.statements[0].sql, trip.statements[0].params)
            else:
                cursor.execute("; ".join(cursor.mogrify(s.sql, s.params) for s in trip.statements))


@dataclass
class _Trip:
    """Statements sent to the database ``alias`` in one ``execute``, carrying ``values``
    together."""

    alias: str
    statements: list[Rendered]
    values: int

    def add(self, rendered: Rendered) -> None:
        self.statements.append(rendered)
        self.values += rendered.values


def _joins_statements(connection: BaseDatabaseWrapper) -> bool:
    """Whether one ``execute`` on ``connection`` may hold several statements with their
    parameters: psycopg binds them on the client (Django's ``ClientCursor``) and sends the
    whole text as one simple query. Server-side binding takes a single statement."""
    options = connection.settings_dict["OPTIONS"]
    return connection.vendor == "postgresql" and options.get("server_side_binding") is not True


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
"""Values one statement of many rows carries at most (:class:`Insert`, :func:`update_values`),
and one round trip of :func:`run`: a parameter each where each value is one (SQLite takes
32,766), the arrays' lengths together in PostgreSQL's inserts."""
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


@dataclass(frozen=True)
class Upsert:
    """The unique index an inserted row may meet (its ``key`` columns, and the ``where`` of a
    partial index, SQL over the model's columns) and the ``columns`` the existing row takes
    from the inserted one; with ``adding``, the inserted row's values are added to the
    existing row's (a negative amount takes a row back down: a voided match)."""

    key: Sequence[str]
    columns: Sequence[str]
    where: str = ""
    adding: bool = False

    def clause(self, table: str) -> str:
        """The ``ON CONFLICT`` clause of an ``INSERT INTO table`` (``table`` quoted)."""
        target = ", ".join(_quoted(column) for column in self.key)
        where = f" WHERE {self.where}" if self.where else ""
        sets = ", ".join(
            f"{q} = {table}.{q} + excluded.{q}" if self.adding else f"{q} = excluded.{q}"
            for q in map(_quoted, self.columns)
        )
        return f" ON CONFLICT ({target}){where} DO UPDATE SET {sets}"


def update_values(
    model: type[Model], key: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """``UPDATE`` the rows of ``model`` whose column ``key`` is the first value of one of
    ``rows``, setting ``columns`` to that row's other values (``WITH v AS (VALUES ...) UPDATE
    ... FROM v``, PostgreSQL and SQLite), :data:`INSERT_PARAMS` parameters a statement. Values
    are converted as the model's fields save them (on PostgreSQL, cast to their column types)."""
    if not rows:
        return
    connection = connections[router.db_for_write(model)]
    names = [key, *columns]
    fields = [model._meta.get_field(name) for name in names]
    concrete = [f for f in fields if isinstance(f, Field)]
    assert len(concrete) == len(fields), f"{model.__name__}: {names} are not all columns"
    if connection.vendor == "postgresql":
        marks = [f"CAST(%s AS {f.db_type(connection)})" for f in concrete]
    else:
        marks = ["%s"] * len(concrete)
    row_marks = "(" + ", ".join(marks) + ")"
    table = _quoted(model._meta.db_table)
    columns_sql = [_quoted(str(f.column)) for f in concrete]
    listed = ", ".join(_quoted(f"v{n}") for n in range(len(concrete)))
    sets = ", ".join(f"{c} = v.{_quoted(f'v{n}')}" for n, c in enumerate(columns_sql) if n)
    per_statement = max(1, INSERT_PARAMS // len(concrete))
    for start in range(0, len(rows), per_statement):
        batch = rows[start : start + per_statement]
        params = [
            f.get_db_prep_save(value, connection)
            for row in batch
            for f, value in zip(concrete, row, strict=True)
        ]
        values = ", ".join([row_marks] * len(batch))
        with connection.cursor() as cursor:
            cursor.execute(
                f"WITH v ({listed}) AS (VALUES {values}) UPDATE {table} SET {sets} FROM v "
                f'WHERE {table}.{columns_sql[0]} = v."v0"',
                params,
            )

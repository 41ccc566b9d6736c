"""``UPDATE`` statements that set each row by its key (see the package's docstring).

An assignment is a column name and an SQL expression over the row with its parameters; the
helpers build the usual ones: a value chosen by the row's key (:func:`by_key`), a column
raised by an amount chosen by the row's key (:func:`added_by_key`), and the higher of a column
and an expression (:func:`at_least`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, ForeignKey, Model

Expression = tuple[str, list[Any]]
"""An SQL expression and its parameters."""


def _quoted(name: str) -> str:
    """A table or column name as SQL (standard double quotes: PostgreSQL and SQLite)."""
    return f'"{name}"'


def by_key(key: str, values: Mapping[int, int]) -> Expression:
    """The integer ``values[k]`` for the row whose column ``key`` is ``k`` (NULL for any other
    row, which the statement's keys must not include)."""
    whens = " ".join(["WHEN %s THEN CAST(%s AS integer)"] * len(values))
    params = [v for item in sorted(values.items()) for v in item]
    return f"CASE {_quoted(key)} {whens} END", params


def field_value(model: type[Model], field: str, value: Any) -> Expression:
    """``value`` as a parameter, converted as the model's ``field`` saves it."""
    connection = connections[router.db_for_write(model)]
    concrete = model._meta.get_field(field)
    assert isinstance(concrete, Field), f"{model.__name__}.{field} is not a column"
    return "%s", [concrete.get_db_prep_save(value, connection)]


def added_by_key(
    column: str, key: str, amounts: Sequence[tuple[int, Collection[int]]]
) -> Expression:
    """``column`` plus the amount of the row's group: ``amounts`` is ``(amount, keys)`` pairs,
    each amount added to the rows whose column ``key`` is in its keys (0 to any other)."""
    whens = []
    params: list[Any] = []
    for amount, keys in amounts:
        marks = ", ".join(["%s"] * len(keys))
        whens.append(f"WHEN {_quoted(key)} IN ({marks}) THEN CAST(%s AS integer)")
        params += [*sorted(keys), amount]
    return f"{_quoted(column)} + CASE {' '.join(whens)} ELSE 0 END", params


def at_least(column: str, expression: Expression, *, vendor: str) -> Expression:
    """The higher of ``column`` and ``expression`` (``GREATEST``; two-argument ``MAX`` on
    SQLite)."""
    sql, params = expression
    function = "MAX" if vendor == "sqlite" else "GREATEST"
    return f"{function}({_quoted(column)}, {sql})", params


def vendor_of(model: type[Model]) -> str:
    """The database vendor that writes of ``model`` go to (``postgresql``, ``sqlite``)."""
    return connections[router.db_for_write(model)].vendor


def update_rows(
    model: type[Model],
    key: str,
    keys: Collection[int],
    assignments: Mapping[str, Expression],
    **where: Any,
) -> int:
    """``UPDATE`` the table of ``model`` where column ``key`` is one of ``keys`` (and each
    column of ``where`` equals its value), setting each column of ``assignments`` to its
    expression; on the database that writes of ``model`` go to, inside the caller's
    transaction. Returns the rows updated. Column names are the model's, never input."""
    if not keys or not assignments:
        return 0
    sets = ", ".join(f"{_quoted(column)} = {sql}" for column, (sql, _) in assignments.items())
    params = [p for _, args in assignments.values() for p in args]
    conditions = [f"{_quoted(key)} IN ({', '.join(['%s'] * len(keys))})"]
    params += sorted(keys)
    for column, value in where.items():
        conditions.append(f"{_quoted(column)} = %s")
        params.append(value)
    table = _quoted(model._meta.db_table)
    with connections[router.db_for_write(model)].cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET {sets} WHERE {' AND '.join(conditions)}", params)
        return cursor.rowcount


def insert_rows(
    model: type[Model],
    rows: Sequence[Mapping[str, Any]],
    *,
    skip_existing: bool = False,
    replacing: Upsert | None = None,
) -> None:
    """``INSERT`` ``rows`` of ``model``, one statement per :data:`INSERT_PARAMS` values,
    each row's columns not given taking the model field's default; with ``skip_existing``,
    rows that would break a unique constraint are left out (``ON CONFLICT DO NOTHING``). Keys
    are column names of concrete fields; the auto primary key is left to the database.

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
    connection = connections[router.db_for_write(model)]
    fields = [
        (str(field.column), field)
        for field in model._meta.concrete_fields
        if not (field.primary_key and field.get_internal_type() in AUTO_FIELDS)
    ]
    given = {column for row in rows for column in row}
    constant = {
        column: int(field.get_default())
        for column, field in fields
        if column not in given and type(field.get_default()) is int
    }
    passed = [(column, field) for column, field in fields if column not in constant]
    columns = ", ".join(_quoted(column) for column, _ in fields)
    conflict = " ON CONFLICT DO NOTHING" if skip_existing else ""
    table = _quoted(model._meta.db_table)
    if replacing is not None:
        conflict = replacing.clause(table)
    unnested = None
    if connection.vendor == "postgresql" and passed:
        arrays = ", ".join(f"CAST(%s AS {field.db_type(connection)}[])" for _, field in passed)
        named = ", ".join(_quoted(column) for column, _ in passed)
        chosen = ", ".join(
            str(constant[column]) if column in constant else f"u.{_quoted(column)}"
            for column, _ in fields
        )
        unnested = f"SELECT {chosen} FROM unnest({arrays}) AS u ({named})"
    marks = "(" + ", ".join(str(constant.get(column, "%s")) for column, _ in fields) + ")"
    per_statement = max(1, INSERT_PARAMS // max(1, len(passed)))
    for start in range(0, len(rows), per_statement):
        batch = rows[start : start + per_statement]
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
            source = f"VALUES {', '.join([marks] * len(batch))}"
            params = [value for row in zip(*values, strict=True) for value in row]
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {table} ({columns}) {source}{conflict}", params)


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
"""Values one statement of many rows carries at most (:func:`insert_rows`,
:func:`update_values`): a parameter each where each value is one (SQLite takes 32,766), the
arrays' lengths together in PostgreSQL's inserts."""
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

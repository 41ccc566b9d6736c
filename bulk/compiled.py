"""Reads whose SQL the ORM compiles once per database (see the package's docstring).

Django compiles a queryset's SQL again each time it runs it. For the small reads that every
request makes (the service key's row, a round report's locked match, seats and rounds), that
compilation costs more CPU than PostgreSQL spends on the statement. A :class:`CompiledRead`
has the ORM compile its queryset once per database alias, with placeholder values, and keeps
with that SQL what each selected column is (a field of the model, or an annotation); each call
then runs the SQL with its values on a plain cursor and makes the rows model instances as the
ORM makes them (every value converted as the ORM converts it, annotations set as attributes),
without the per-call work of ``Model.objects.raw`` (reading the columns' names back and matching
them to the fields again). The SQL is the ORM's own, so it follows the models, the database's
quoting and its lock clauses (``FOR UPDATE OF`` on PostgreSQL, none on SQLite).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import connections, router
from django.db.models import Model, QuerySet
from django.db.transaction import TransactionManagementError

M = TypeVar("M", bound=Model)

_PLACEHOLDER_INT = -987_654_321
"""The first integer placeholder; the next ones count down from it."""


def _placeholder(kind: type, index: int) -> Any:
    """The value that stands for argument ``index`` of type ``kind`` while the SQL is built."""
    if kind is int:
        return _PLACEHOLDER_INT - index
    if kind is str:
        return f"\x1fargument {index}\x1f"
    raise TypeError(f"a compiled read takes int and str arguments, not {kind.__name__}")


class CompiledRead(Generic[M]):
    """A read of ``model`` built by ``build(*arguments)``, compiled once per database.

    ``kinds`` are the types of ``build``'s arguments (``int`` or ``str``), each used in the
    queryset as a plain value of a lookup (``filter(pk=x)``), never as a list or in Python
    logic. ``for_write`` reads from the database that writes of ``model`` go to (a locking
    read, or a read in the transaction of a write); otherwise from the one reads go to.

    Calling it with the arguments returns the rows as a list of model instances, each value
    converted as the queryset would convert it and each annotation set as an attribute.

    Raises:
        TransactionManagementError: the queryset locks its rows (``select_for_update``), the
            database has row locks and the call is outside a transaction: the ORM's rule,
            which the ORM itself checks only while compiling.
        ValueError: when first compiled, the SQL does not take each argument exactly once as
            a parameter, or the queryset selects related rows along (``select_related``): the
            queryset cannot be compiled this way.
    """

    def __init__(
        self,
        model: type[M],
        build: Callable[..., QuerySet[M]],
        *kinds: type,
        for_write: bool = False,
    ) -> None:
        self.model = model
        self._build = build
        self._kinds = kinds
        self._for_write = for_write
        self._compiled: dict[str, _Compiled] = {}

    def __call__(self, *arguments: Any) -> list[M]:
        route = router.db_for_write if self._for_write else router.db_for_read
        alias = route(self.model)
        compiled = self._compiled.get(alias)
        if compiled is None:
            compiled = self._compiled[alias] = self._compile(alias)
        connection = connections[alias]
        if compiled.locks and connection.get_autocommit():
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        params = [
            arguments[value] if is_argument else value for is_argument, value in compiled.slots
        ]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        return compiled.instances(self.model, alias, rows, connection)

    def _compile(self, alias: str) -> _Compiled:
        """The SQL for ``alias`` with each parameter as ``(True, argument index)`` or ``(False,
        constant)``, whether it locks rows (SQLite has no row locks: there the ORM leaves the
        lock clause out), and what each selected column is."""
        placeholders = [_placeholder(kind, index) for index, kind in enumerate(self._kinds)]
        queryset = self._build(*placeholders).using(alias)
        compiler = queryset.query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        slots: list[tuple[bool, Any]] = []
        for param in params:
            if param in placeholders:
                slots.append((True, placeholders.index(param)))
            else:
                slots.append((False, param))
        taken = sorted(value for is_argument, value in slots if is_argument)
        if taken != list(range(len(placeholders))):
            raise ValueError(
                f"the SQL of this {self.model.__name__} read does not take each argument once"
            )
        assert compiler.klass_info is not None  # a queryset of model instances has its layout
        if compiler.klass_info.get("related_klass_infos"):
            raise ValueError(f"this {self.model.__name__} read selects related rows along")
        fields = compiler.klass_info["select_fields"]
        locks = connections[alias].features.has_select_for_update
        return _Compiled(
            sql=sql,
            slots=slots,
            locks=bool(queryset.query.select_for_update) and locks,
            columns=[expression for expression, _, _ in compiler.select],
            names=[compiler.select[position][0].target.attname for position in fields],
            positions=fields,
            annotations=list(compiler.annotation_col_map.items()),
        )


@dataclass(frozen=True)
class _Compiled:
    """A read compiled for one database: its SQL and parameters (``slots``), whether it locks
    rows, its selected ``columns`` (the ORM's expressions, which say how each value is
    converted), the model's field names (``names``, attnames) at ``positions`` of a row, and
    the annotations' names with their positions."""

    sql: str
    slots: list[tuple[bool, Any]]
    locks: bool
    columns: list[Any]
    names: list[str]
    positions: list[int]
    annotations: list[tuple[str, int]]

    def instances(
        self, model: type[M], alias: str, rows: list[tuple[Any, ...]], connection: Any
    ) -> list[M]:
        """``rows`` as instances of ``model`` loaded from ``alias``, each value converted by
        the converters of its column on ``connection`` (the backend's, then the field's)."""
        converting = []
        for position, column in enumerate(self.columns):
            converters = [
                *connection.ops.get_db_converters(column),
                *column.get_db_converters(connection),
            ]
            if converters:
                converting.append((position, column, converters))
        found = []
        for row in rows:
            values = list(row)
            for position, column, converters in converting:
                for converter in converters:
                    values[position] = converter(values[position], column, connection)
            instance = model.from_db(alias, self.names, [values[p] for p in self.positions])
            for name, position in self.annotations:
                setattr(instance, name, values[position])
            found.append(instance)
        return found

"""Reads whose SQL the ORM compiles once per database (see the package's docstring).

Django compiles a queryset's SQL again each time it runs it. For the small reads that every
request makes (the service key's row, a round report's locked match, seats and rounds), that
compilation costs more CPU than PostgreSQL spends on the statement. A :class:`CompiledRead`
has the ORM compile its queryset once per database alias, with placeholder values, and then
runs that SQL as ``Model.objects.raw`` with each call's values: the rows become model instances
as ``raw`` makes them (every field converted as the ORM converts it, extra selected columns
such as annotations set as attributes). The SQL is the ORM's own, so it follows the models,
the database's quoting and its lock clauses (``FOR UPDATE OF`` on PostgreSQL, none on SQLite).
"""

from __future__ import annotations

from collections.abc import Callable
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

    Calling it with the arguments returns the rows as a list.

    Raises:
        TransactionManagementError: the queryset locks its rows (``select_for_update``), the
            database has row locks and the call is outside a transaction: the ORM's rule,
            which the ORM itself checks only while compiling.
        ValueError: when first compiled, the SQL does not take each argument exactly once as
            a parameter (the queryset cannot be compiled this way).
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
        self._compiled: dict[str, tuple[str, list[tuple[bool, Any]], bool]] = {}

    def __call__(self, *arguments: Any) -> list[M]:
        route = router.db_for_write if self._for_write else router.db_for_read
        alias = route(self.model)
        compiled = self._compiled.get(alias)
        if compiled is None:
            compiled = self._compiled[alias] = self._compile(alias)
        sql, slots, locks = compiled
        if locks and connections[alias].get_autocommit():
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        params = [arguments[value] if is_argument else value for is_argument, value in slots]
        return list(self.model._default_manager.db_manager(alias).raw(sql, params))

    def _compile(self, alias: str) -> tuple[str, list[tuple[bool, Any]], bool]:
        """The SQL for ``alias``, each parameter as ``(True, argument index)`` or ``(False,
        constant)``, and whether it locks rows (SQLite has no row locks: there the ORM leaves
        the lock clause out)."""
        placeholders = [_placeholder(kind, index) for index, kind in enumerate(self._kinds)]
        queryset = self._build(*placeholders).using(alias)
        sql, params = queryset.query.get_compiler(using=alias).as_sql()
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
        locks = connections[alias].features.has_select_for_update
        return sql, slots, bool(queryset.query.select_for_update) and locks

"""The API's paginations: DRF's, with the paging rules of ``domain.paging``, so that a ``page``
or a ``cursor`` that is none of the list's is a 400 naming it (API.md "Conventions"), never
DRF's 404, nor a 500 from the database. Every list pages through one of these:
:class:`NumberedPages` is ``DEFAULT_PAGINATION_CLASS``, and each cursor pagination derives
from :class:`CursorPages` (a player's history reads its cursors in ``matches.history``, by the
same rules). Not a Django app; of the project it imports only ``domain``.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import Field, QuerySet
from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination, PageNumberPagination

from domain.paging import InvalidCursor, page_number


class NumberedPages(PageNumberPagination):
    """DRF's numbered pages, where a ``page`` that is not a whole number from 1 is a 400 on
    ``page`` (``domain.paging.page_number``); blank or missing is the first page, ``last`` the
    last one, and a page past the last stays a 404, as DRF has it."""

    def get_page_number(self, request, paginator) -> int:
        given = request.query_params.get(self.page_query_param)
        if given in self.last_page_strings:
            return paginator.num_pages
        return page_number(given)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        """DRF's ``page`` and ``page_size`` parameters, ``page`` a whole number from 1."""
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"] = {**parameter["schema"], "minimum": 1}
        return parameters


class CursorPages(CursorPagination):
    """DRF's cursor pages, where a ``cursor`` that is none of the list's is a 400 on ``cursor``
    (``domain.paging.InvalidCursor``): one that does not decode, and one whose position is no
    value of the order's field (``p=abc`` for an id). The position is checked against that
    model field's type before the page is read, so a wrong one never reaches the database."""

    listed: QuerySet

    def paginate_queryset(self, queryset, request, view=None):
        self.listed = queryset
        return super().paginate_queryset(queryset, request, view)

    def decode_cursor(self, request) -> Cursor | None:
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            raise InvalidCursor() from None
        if cursor is None or cursor.position is None:
            return cursor
        try:
            self._order_field().clean(cursor.position, None)
        except ValidationError:
            raise InvalidCursor() from None
        return cursor

    def _order_field(self) -> Field:
        """The field of the order's first column, whose values a cursor's position holds."""
        return self.listed.model._meta.get_field(self.ordering[0].lstrip("-"))

"""The paging rules every list shares, the API's and the players' pages' (API.md "Conventions":
lists are paginated; invalid input is a 400 naming the field, never a 404 or a 500): a
``cursor`` is a token of one of the list's own ``next`` / ``previous`` links. The API answers a
breach with a 400 on the parameter (a :class:`~domain.errors.RuleError`); the pages show the
list's first page instead.
"""

from __future__ import annotations

from domain.errors import RuleError

CURSOR = "cursor"


class InvalidCursor(RuleError):
    """A ``cursor`` that is none of the list's: not base64, not of the list's shape, or naming
    a position that is no value of the list's order (a word where an id goes): 400 on
    ``cursor``."""

    def __init__(self) -> None:
        super().__init__(CURSOR, "not a cursor of this list: follow a page's next or previous link")

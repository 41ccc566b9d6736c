"""The paging rules every list shares, the API's and the players' pages' (API.md "Conventions":
lists are paginated; invalid input is a 400 naming the field, never a 404 or a 500): a
``page`` is a whole number from 1, and a ``cursor`` is a token of one of the list's own
``next`` / ``previous`` links. The API answers a breach with a 400 on the parameter (these are
:class:`~domain.errors.RuleError`\\s); the pages show the list's first page instead.
"""

from __future__ import annotations

from domain.errors import RuleError

CURSOR = "cursor"
PAGE = "page"


class InvalidCursor(RuleError):
    """A ``cursor`` that is none of the list's: not base64, not of the list's shape, or naming
    a position that is no value of the list's order (a word where an id goes): 400 on
    ``cursor``."""

    def __init__(self) -> None:
        super().__init__(CURSOR, "not a cursor of this list: follow a page's next or previous link")


class InvalidPage(RuleError):
    """A ``page`` that is not a whole number from 1 (``abc``, ``0``, ``-1``): 400 on
    ``page``. A page past the last is no such page (404), not this."""

    def __init__(self, given: str) -> None:
        super().__init__(PAGE, f"must be a whole number from 1; got {given!r}")


def page_number(given: str | None) -> int:
    """The page a query's ``page`` asks for: 1 when it is missing or blank.

    Raises:
        InvalidPage: ``given`` is not a whole number from 1.
    """
    if not given:
        return 1
    if not (given.isascii() and given.isdigit()) or int(given) < 1:
        raise InvalidPage(given)
    return int(given)

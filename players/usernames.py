"""Usernames (API.md "Players"): 3 to 30 letters of any script, digits, ``_``, ``.`` or ``-``,
kept in Unicode NFKC form, and unique ignoring case.

"Ignoring case" is Unicode case folding, not lower-casing: ``STRASSE`` and ``straße`` are one
name, which ``lower()`` (of SQL or of Python) does not see. A player stores the folded form of
their name, :func:`username_key`, in a column of its own with a unique index, so that SQLite and
PostgreSQL refuse the same names and a search ignores case in every script on both.

The length is counted in columns, as text is laid out: a wide character (Han, Kana, Hangul:
East Asian Width ``W`` or ``F``) takes two, so ``李雷`` (four columns) is a name, as two-character
names in those scripts are common, while ``ab`` is too short and 30 Han characters too long.

Pure: imports nothing of Django, so the model's validator, the service and the pages all ask
these functions.
"""

from __future__ import annotations

import unicodedata

from domain.errors import RuleError

USERNAME_MIN_LENGTH = 3
USERNAME_MAX_LENGTH = 30
USERNAME_RULE = (
    f"a username is {USERNAME_MIN_LENGTH} to {USERNAME_MAX_LENGTH} letters of any script, "
    "digits, '_', '.' or '-' (no spaces, symbols or emoji; a wide character such as a Han "
    "one counts 2)"
)
_MARKS_OF_LETTERS = "M"
"""Unicode's general categories of combining marks (a vowel sign of Devanagari, a harakat of
Arabic): part of the letter they follow."""


class UsernameError(RuleError):
    """A username that breaks :data:`USERNAME_RULE` (field ``username``)."""

    def __init__(self, raw: str) -> None:
        super().__init__("username", f"{USERNAME_RULE}; got {raw!r}")


def username_normal(raw: str) -> str:
    """The NFKC form of ``raw`` (fullwidth ``ivan`` is ``ivan``, a decomposed ``é`` is one letter),
    checked against the rule.

    Raises:
        UsernameError: the normal form is shorter than 3 or longer than 30 columns, or holds
            a character that is not a letter (with its marks), a decimal digit, ``_``, ``.`` or
            ``-``.
    """
    name = unicodedata.normalize("NFKC", raw)
    if not USERNAME_MIN_LENGTH <= _columns(name) <= USERNAME_MAX_LENGTH:
        raise UsernameError(raw)
    previous = ""
    for character in name:
        if not _allowed(character, previous):
            raise UsernameError(raw)
        previous = character
    return name


def username_key(name: str) -> str:
    """The form of ``name`` that two names equal ignoring case share: NFKC, case-folded, NFKC
    again (Unicode's NFKC_Casefold in effect). Also folds search text, so that a search for
    ``ИВАН`` finds ``иван``."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", folded)


def _columns(name: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in name)


def _allowed(character: str, previous: str) -> bool:
    if character in "_.-":
        return True
    category = unicodedata.category(character)
    if category.startswith(_MARKS_OF_LETTERS):
        return previous != "" and (previous.isalpha() or _is_mark(previous))
    return category.startswith("L") or category == "Nd"


def _is_mark(character: str) -> bool:
    return unicodedata.category(character).startswith(_MARKS_OF_LETTERS)

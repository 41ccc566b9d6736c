"""Usernames (API.md "Players"): 3 to 30 letters of any script, digits, ``_``, ``.`` or ``-``,
kept in Unicode NFKC form, and unique ignoring case.

"Ignoring case" is Unicode case folding, not lower-casing: ``STRASSE`` and ``straße`` are one
name, which ``lower()`` (of SQL or of Python) does not see. A player stores the folded form of
their name, :func:`username_key`, in a column of its own with a unique index, so that SQLite and
PostgreSQL refuse the same names and a search ignores case in every script on both.

The most is 30 letters (and digits, ``_``, ``.``, ``-``) of any script, as API.md says: a
combining mark is part of the letter it follows and not counted, so 30 Han characters or 30
Devanagari letters with their vowel signs are a name (up to three marks a letter: more only
pile up over the lines around the name, and the column holds 30 letters with three each).
The least is counted in columns, as text is laid out: a wide character (Han, Kana, Hangul:
East Asian Width ``W`` or ``F``) takes two, so ``李雷`` (four columns) is a name, as
two-character names in those scripts are common (the contract's "3" read as the width of three
Latin letters), while ``ab`` and ``李`` are too short.

Pure: imports nothing of Django, so the model's validator, the service and the pages all ask
these functions.
"""

from __future__ import annotations

import unicodedata

from domain.errors import RuleError

USERNAME_MIN_LENGTH = 3
USERNAME_MAX_LENGTH = 30
USERNAME_MARKS_PER_LETTER = 3
"""The most combining marks one letter of a username carries (Vietnamese and Indic letters
take two or three)."""
USERNAME_STORED_LENGTH = (1 + USERNAME_MARKS_PER_LETTER) * USERNAME_MAX_LENGTH
"""Code points a username's column holds: 30 letters, each with its combining marks (or its
case-folded form, which may be longer: ``ß`` folds to ``ss``)."""
USERNAME_RULE = (
    f"a username is {USERNAME_MIN_LENGTH} to {USERNAME_MAX_LENGTH} letters of any script, "
    "digits, '_', '.' or '-' (a letter with at most "
    f"{USERNAME_MARKS_PER_LETTER} combining marks; no spaces, symbols or emoji; towards the "
    "least, a wide character such as a Han one counts 2)"
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
        UsernameError: the normal form is narrower than 3 columns or longer than 30 letters
            (marks not counted), its case-folded form longer than its column
            (:data:`USERNAME_STORED_LENGTH` code points), or it holds a character that is not
            a letter (with at most 3 marks), a decimal digit, ``_``, ``.`` or ``-``.
    """
    name = unicodedata.normalize("NFKC", raw)
    letters = sum(not _is_mark(c) for c in name)
    if _columns(name) < USERNAME_MIN_LENGTH or letters > USERNAME_MAX_LENGTH:
        raise UsernameError(raw)
    if len(username_key(name)) > USERNAME_STORED_LENGTH:  # folding lengthens it: ß is ss
        raise UsernameError(raw)
    previous = ""
    marks = 0
    for character in name:
        marks = marks + 1 if _is_mark(character) else 0
        if not _allowed(character, previous) or marks > USERNAME_MARKS_PER_LETTER:
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


DISPLAY_NAME_MAX_LENGTH = 80
"""The most characters of a display name, in its NFKC form (the form stored)."""
DISPLAY_NAME_RULE = (
    f"a display name is at most {DISPLAY_NAME_MAX_LENGTH} characters in NFKC form, "
    "of any script, without control characters, line breaks or "
    "direction overrides (U+202A-U+202E, U+2066-U+2069), and at most "
    "{marks} combining marks on one letter"
)
_DIRECTION_CONTROLS = frozenset(map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]))
"""The embeddings, overrides and isolates of Unicode's bidirectional algorithm: a name holding
one would turn the text around it (a page's title, a table's row) backwards."""
MARKS_PER_LETTER = 4
"""The most combining marks one letter carries (Vietnamese and Indic letters take two or
three): more only pile up over the lines around the name."""


class DisplayNameError(RuleError):
    """A display name that breaks :data:`DISPLAY_NAME_RULE` (field ``display_name``)."""

    def __init__(self, raw: str) -> None:
        rule = DISPLAY_NAME_RULE.format(marks=MARKS_PER_LETTER)
        super().__init__("display_name", f"{rule}; got {raw!r}")


def display_name_normal(raw: str) -> str:
    """The NFKC form of ``raw`` without its outer spaces, checked against the rule; an empty
    one stays empty (the caller defaults it to the username). Joiners (U+200C, U+200D), which
    Persian and Indic names need, are kept.

    Raises:
        DisplayNameError: longer than :data:`DISPLAY_NAME_MAX_LENGTH` characters, a control
            character (tab, line break, escape), a line or paragraph
            separator, a direction control, or more than :data:`MARKS_PER_LETTER` marks on
            one letter.
    """
    name = unicodedata.normalize("NFKC", raw).strip()
    if len(name) > DISPLAY_NAME_MAX_LENGTH:  # NFKC may lengthen it: U+FDFA is 18 characters
        raise DisplayNameError(raw)
    marks = 0
    for character in name:
        category = unicodedata.category(character)
        if category in ("Cc", "Zl", "Zp") or character in _DIRECTION_CONTROLS:
            raise DisplayNameError(raw)
        marks = marks + 1 if category.startswith(_MARKS_OF_LETTERS) else 0
        if marks > MARKS_PER_LETTER:
            raise DisplayNameError(raw)
    return name

"""Model choices made from the rules' enums, shared by the models of the matches app, and
JSON values as their columns give them back."""

from enum import StrEnum
from typing import Any

from django.db import connection

from matches.kort.rules import Team


def choices_of(enum: type[StrEnum]) -> list[tuple[str, str]]:
    """Django ``choices`` for a ``StrEnum``: each value is its own label."""
    return [(member.value, member.value) for member in enum]


TEAM_CHOICES = choices_of(Team)
"""The choices of every team field: A or B (KORT_RULES §1)."""


def json_as_read(value: Any) -> Any:
    """``value`` (JSON types) as a JSON column gives it back once stored, so an object written
    and answered without reading it again answers as read: PostgreSQL's ``jsonb`` keeps the
    keys of each object shortest first, then in byte order; SQLite keeps them as written."""
    if connection.vendor != "postgresql":
        return value
    return _jsonb_ordered(value)


def _jsonb_ordered(value: Any) -> Any:
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: (len(key.encode()), key.encode()))
        return {key: _jsonb_ordered(value[key]) for key in keys}
    if isinstance(value, list):
        return [_jsonb_ordered(item) for item in value]
    return value

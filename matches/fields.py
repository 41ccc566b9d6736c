"""Model choices made from the rules' enums, shared by the models of the matches app."""

from enum import StrEnum

from matches.kort.rules import Team


def choices_of(enum: type[StrEnum]) -> list[tuple[str, str]]:
    """Django ``choices`` for a ``StrEnum``: each value is its own label."""
    return [(member.value, member.value) for member in enum]


TEAM_CHOICES = choices_of(Team)
"""The choices of every team field: A or B (KORT_RULES §1)."""

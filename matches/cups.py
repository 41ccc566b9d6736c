"""The cups each finalized ranked match gave (KORT_RULES §7; API.md "Matches": ``cups``), as
the match API shows them. They are rows of the cups ledger, which the ladder (``ranking``, an
app above this one) owns: this app never reads them itself, through an import or an ORM
relation. The ladder provides the read when it loads (``ranking.apps``) and the match API asks
for it here, as this app queues the ladder's tasks by name (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.core.exceptions import ImproperlyConfigured

from matches.history import MatchValue
from matches.models import Match

MatchesCups = Callable[[Iterable[int]], dict[int, dict[int, int]]]
"""``read(match ids) -> {match id: {player id: cups}}``: the cups the matches gave, each
match's players in the ledger's order; a match that gave none (not finalized, a room match) is
left out. One query whatever the number of matches."""

_PROVIDED: list[MatchesCups] = []


def matches_cups_provide(read: MatchesCups) -> None:
    """Make ``read`` the read of :func:`matches_cups` (the ladder's, once it is loaded)."""
    _PROVIDED[:] = [read]


def matches_cups(match_ids: Iterable[int]) -> dict[int, dict[int, int]]:
    """The cups the matches ``match_ids`` gave: ``{match id: {player id: cups}}``.

    Raises:
        ImproperlyConfigured: no installed app provides the read (``ranking`` is not).
    """
    if not _PROVIDED:
        raise ImproperlyConfigured("no installed app provides the matches' cups (ranking)")
    return _PROVIDED[0](match_ids)


def cups_of(matches: Iterable[Match | MatchValue]) -> dict[int, dict[int, int]]:
    """The cups of those of ``matches`` that gave some (their ``gave_cups``), read together
    (none read when none did): a page of matches as the API and the pages show it."""
    gave = [match.id for match in matches if match.gave_cups]
    return matches_cups(gave) if gave else {}

"""Reads of the ladder: the leaderboard and ranks (API.md "Leaderboard").

Order: ``players.models.LEADERBOARD_ORDER`` (cups descending, then who reached their total
earlier, then id). Ranks are 1, 2, 3, ... with no shared ranks, the same in every endpoint:
every rank shown is numbered by :func:`ranked`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from django.db.models import Q, QuerySet
from django.db.models.functions import Lower

from players.models import LEADERBOARD_ORDER, Player
from ranking.models import CupChange

MAX_RADIUS = 50


class RankedPlayer(NamedTuple):
    """A leaderboard row: the player and their 1-based rank."""

    rank: int
    player: Player


def leaderboard_queryset() -> QuerySet[Player]:
    """Humans with at least one finalized ranked match and no ban, in leaderboard order."""
    return Player.objects.filter(
        is_bot=False, is_banned=False, cups_changed_at__isnull=False
    ).order_by(*LEADERBOARD_ORDER)


def ranked(rows: Iterable[Player], ahead: int) -> list[RankedPlayer]:
    """Rank consecutive leaderboard rows, the first of which has ``ahead`` players before it:
    a rank is 1 + the number of players ahead, so no two players share one."""
    return [RankedPlayer(rank, player) for rank, player in enumerate(rows, start=ahead + 1)]


def player_rank(player: Player) -> int | None:
    """The player's 1-based leaderboard rank, or None when they are not on the leaderboard."""
    if player.is_bot or player.is_banned or player.cups_changed_at is None:
        return None
    ahead = leaderboard_queryset().filter(_ahead_of(player)).count()
    ((rank, _),) = ranked([player], ahead)
    return rank


def leaderboard_around(player: Player, radius: int) -> list[RankedPlayer] | None:
    """The rows from ``radius`` above the player to ``radius`` below (fewer at the edges), or
    None when the player is not on the leaderboard."""
    rank = player_rank(player)
    if rank is None:
        return None
    ahead = max(0, rank - 1 - radius)
    return ranked(leaderboard_queryset()[ahead : rank + radius], ahead)


def _ahead_of(player: Player) -> Q:
    """Players before ``player`` in ``LEADERBOARD_ORDER``: better on the first field that
    differs, equal on all the fields before it."""
    ahead, tied = Q(), Q()
    for name in LEADERBOARD_ORDER:
        field = name.removeprefix("-")
        better = "gt" if name.startswith("-") else "lt"
        value = getattr(player, field)
        ahead |= tied & Q(**{f"{field}__{better}": value})
        tied &= Q(**{field: value})
    return ahead


def player_named(username: str) -> Player | None:
    """The player whose username is ``username`` ignoring case (usernames are unique so), or
    None. Looked up through the index on the lower-cased username."""
    named = Player.objects.annotate(lower_username=Lower("username"))
    return named.filter(lower_username=username.lower()).first()


@dataclass(frozen=True)
class LedgerEntry:
    """One cup change of a player (KORT_RULES §7): when, by how much, the total right after it
    (``cups_after``) and the match that gave it."""

    at: datetime
    delta: int
    cups_after: int
    match_id: int


def cups_ledger(player: Player, limit: int) -> list[LedgerEntry]:
    """The player's latest ``limit`` cup changes, newest first (the ledger's order). A
    player's cups are the sum of their ledger (§7), so each ``cups_after`` is counted back
    from ``player.cups``: one query of ``limit`` rows, however long the ledger."""
    changes = CupChange.objects.filter(player=player).order_by("-created_at", "-id")[:limit]
    entries = []
    cups_after = player.cups
    for change in changes:
        entries.append(LedgerEntry(change.created_at, change.delta, cups_after, change.match_id))
        cups_after -= change.delta
    return entries

"""Reads of the ladder: the leaderboard order and ranks (API.md "Leaderboard").

Order: cups descending, then who reached their total earlier (``cups_changed_at``), then id.
Ranks are 1, 2, 3, ... with no shared ranks, the same in every endpoint.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.db.models.functions import Lower

from ranking.models import CupChange, Player

MAX_RADIUS = 50


def leaderboard_queryset() -> QuerySet[Player]:
    """Humans with at least one finalized ranked match and no ban, in leaderboard order."""
    return Player.objects.filter(
        is_bot=False, is_banned=False, cups_changed_at__isnull=False
    ).order_by("-cups", "cups_changed_at", "id")


def player_rank(player: Player) -> int | None:
    """The player's 1-based leaderboard rank, or None when they are not on the leaderboard."""
    if player.is_bot or player.is_banned or player.cups_changed_at is None:
        return None
    ahead = leaderboard_queryset().filter(
        Q(cups__gt=player.cups)
        | Q(cups=player.cups, cups_changed_at__lt=player.cups_changed_at)
        | Q(cups=player.cups, cups_changed_at=player.cups_changed_at, id__lt=player.id)
    )
    return ahead.count() + 1


def leaderboard_around(player: Player, radius: int) -> list[tuple[int, Player]] | None:
    """``(rank, player)`` rows from ``radius`` above the player to ``radius`` below (fewer at
    the edges), or None when the player is not on the leaderboard."""
    rank = player_rank(player)
    if rank is None:
        return None
    first = max(1, rank - radius)
    rows = leaderboard_queryset()[first - 1 : rank + radius]
    return list(enumerate(rows, start=first))


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

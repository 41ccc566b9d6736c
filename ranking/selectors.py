"""Reads of the ladder: the leaderboard order and ranks (API.md "Leaderboard").

Order: cups descending, then who reached their total earlier (``cups_changed_at``), then id.
Ranks are 1, 2, 3, ... with no shared ranks, the same in every endpoint.
"""

from django.db.models import Q, QuerySet

from players.models import Player

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

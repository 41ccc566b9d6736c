"""Players for the pages' tests, written straight to the tables (the leaderboard reads only
the players' cups and the time of their last change, API.md "Leaderboard")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from players.models import Player

START = datetime(2026, 3, 1, tzinfo=UTC)


def board_players(count: int, *, prefix: str = "p") -> list[Player]:
    """``count`` humans on the leaderboard (usernames ``p0``, ``p1``, ...), with ties on cups
    broken by the time of the last change and then by id, in creation order."""
    players = [
        Player(
            username=f"{prefix}{n}",
            display_name=f"Player {n}",
            cups=(n * 7) % 23 - 5,
            best_cups=max(0, (n * 7) % 23 - 5),
            cups_changed_at=START + timedelta(minutes=n % 5),
        )
        for n in range(count)
    ]
    return Player.objects.bulk_create(players)

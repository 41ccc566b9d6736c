"""Players for the pages' tests, written straight to the tables (the leaderboard reads only
the players' cups, the time of their last change and the season of their board, API.md
"Leaderboard"), and the board's counts built from them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from players.models import Player
from ranking.board import board_build, current_season_number
from stats.models import SeasonStats

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
            board_season=current_season_number(),
        )
        for n in range(count)
    ]
    created = Player.objects.bulk_create(players)
    board_build(current_season_number())
    return created


def season_stats(players: list[Player]) -> list[Player]:
    """``players`` of :func:`board_players` with the current season's statistics that a
    season's live standings read beside each row (a ranked match played, their cups)."""
    SeasonStats.objects.bulk_create(
        SeasonStats(
            player=player,
            season=current_season_number(),
            matches_played=1,
            ranked_played=1,
            cups=player.cups,
            best_cups=player.best_cups,
        )
        for player in players
    )
    return players

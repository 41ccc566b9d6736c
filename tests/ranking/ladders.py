"""Ladders for the leaderboard's tests: players inserted in bulk, and the board ordered by hand
(API.md "Leaderboard", KORT_RULES §10) to compare every read with."""

from datetime import UTC, datetime, timedelta

from players.models import Player

SEASON = 1
"""The season the migrations open, whose board the tests fill (KORT_RULES §10)."""
T0 = datetime(2026, 3, 1, tzinfo=UTC)


def brute_board(season: int = SEASON) -> list[Player]:
    """The board ordered by hand: humans without a ban on the season's board, by cups
    descending, then the earlier last change, then the lower id (API.md "Leaderboard")."""
    players = [
        p
        for p in Player.objects.all()
        if not p.is_bot and not p.is_banned and p.board_season == season
    ]
    return sorted(players, key=lambda p: (-p.cups, p.cups_changed_at, p.pk))


def brute_ranks() -> dict[int, int | None]:
    ranks: dict[int, int | None] = dict.fromkeys(Player.objects.values_list("pk", flat=True))
    ranks |= {p.pk: rank for rank, p in enumerate(brute_board(), start=1)}
    return ranks


def ladder_insert(rows) -> None:
    """Players from ``rows`` of (cups, time index, kind), inserted in order (ids ascending)."""
    Player.objects.bulk_create(
        Player(
            username=f"p{n}",
            cups=cups,
            best_cups=max(cups, 0),
            cups_changed_at=None if kind == "no board" else T0 + timedelta(minutes=at),
            is_bot=kind == "bot",
            is_banned=kind == "banned",
            board_season={"board": SEASON, "banned": SEASON, "other season": SEASON + 1}.get(kind),
        )
        for n, (cups, at, kind) in enumerate(rows)
    )

"""Reads of the ladder: the leaderboard and ranks (API.md "Leaderboard"), the seasons' boards
and standings, a player's seasons and cups ledger (API.md "Seasons"; KORT_RULES §10).

Order: ``players.models.LEADERBOARD_ORDER`` (cups descending, then who reached their total
earlier, then id). Ranks are 1, 2, 3, ... with no shared ranks, the same in every endpoint:
every rank shown is numbered by :func:`ranked`, or frozen with a finalized season's standings.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import NamedTuple

from django.db.models import Q, QuerySet

from players.models import LEADERBOARD_ORDER, Player
from ranking.models import CupChange, SeasonEnd, SeasonStanding
from seasons.models import Season, SeasonStatus
from seasons.selectors import current_season
from stats.models import SeasonStats
from stats.selectors import season_figures

MAX_RADIUS = 50


class RankedPlayer(NamedTuple):
    """A leaderboard row: the player and their 1-based rank."""

    rank: int
    player: Player


class BoardKey(NamedTuple):
    """Where a row stands in ``LEADERBOARD_ORDER``: a player's cups, last cup change and id."""

    cups: int
    cups_changed_at: datetime | None
    id: int

    @classmethod
    def of(cls, player: Player) -> BoardKey:
        return cls(player.cups, player.cups_changed_at, player.pk)


def leaderboard_queryset() -> QuerySet[Player]:
    """The current season's board (KORT_RULES §10): humans with no ban and at least one
    finalized, not voided, ranked match in the season, in leaderboard order."""
    members = SeasonStats.objects.filter(season=current_season().number, ranked_played__gt=0)
    return Player.objects.filter(
        is_bot=False, is_banned=False, pk__in=members.values("player_id")
    ).order_by(*LEADERBOARD_ORDER)


def leaderboard_after(after: BoardKey | None, limit: int) -> list[Player]:
    """Up to ``limit`` rows of the current board that follow ``after`` in its order (from the
    top when None): the board read in batches, each costing about what the first does."""
    board = leaderboard_queryset()
    if after is not None:
        board = board.filter(_behind(after))
    return list(board[:limit])


def ranked(rows: Iterable[Player], ahead: int) -> list[RankedPlayer]:
    """Rank consecutive leaderboard rows, the first of which has ``ahead`` players before it:
    a rank is 1 + the number of players ahead, so no two players share one."""
    return [RankedPlayer(rank, player) for rank, player in enumerate(rows, start=ahead + 1)]


def player_rank(player: Player) -> int | None:
    """The player's 1-based rank on the current board, or None when they are not on it."""
    if player.is_bot or player.is_banned:
        return None
    board = leaderboard_queryset()
    if not board.filter(pk=player.pk).exists():
        return None
    ahead = board.filter(_ahead_of(BoardKey.of(player))).count()
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


def _ahead_of(key: BoardKey) -> Q:
    """Rows before ``key`` in ``LEADERBOARD_ORDER``: better on the first field that differs,
    equal on all the fields before it."""
    return _compared(key, before=True)


def _behind(key: BoardKey) -> Q:
    """Rows after ``key`` in ``LEADERBOARD_ORDER``."""
    return _compared(key, before=False)


def _compared(key: BoardKey, *, before: bool) -> Q:
    found, tied = Q(), Q()
    for name in LEADERBOARD_ORDER:
        field = name.removeprefix("-")
        descending = name.startswith("-")
        lookup = "gt" if descending == before else "lt"
        value = getattr(key, field)
        found |= tied & Q(**{f"{field}__{lookup}": value})
        tied &= Q(**{field: value})
    return found


# --- seasons ------------------------------------------------------------------------------


class SeasonRow(NamedTuple):
    """A row of a season's board: a ranked player with their best cups and ranked matches of
    the season (API.md "Seasons"); ``cups`` at the season's end, or now."""

    rank: int
    player: Player
    cups: int
    best_cups: int
    matches_played: int


def season_board(season: Season, offset: int, limit: int) -> tuple[list[SeasonRow], int]:
    """A page of ``season``'s board and the board's length: the frozen final standings of a
    finalized season, read by rank; the live board of the current one, with each row's season
    figures (one query for the page)."""
    if season.status == SeasonStatus.FINALIZED:
        standings = SeasonStanding.objects.filter(
            season=season, rank__gt=offset, rank__lte=offset + limit
        ).select_related("player")
        rows = [
            SeasonRow(row.rank, row.player, row.cups, row.best_cups, row.matches_played)
            for row in standings.order_by("rank")
        ]
        return rows, SeasonEnd.objects.get(season=season).standings
    board = leaderboard_queryset()
    page = ranked(board[offset : offset + limit], offset)
    figures = season_figures(season.number, [row.player.pk for row in page])
    rows = [
        SeasonRow(
            rank,
            player,
            player.cups,
            figures[player.pk].best_cups,
            figures[player.pk].ranked_played,
        )
        for rank, player in page
    ]
    return rows, board.count()


class PlayerSeason(NamedTuple):
    """One season of a player (API.md ``/players/{id}/seasons/``): ``rank`` final, live for the
    current season, None when off the board; ``cups`` at the end, or now."""

    season: int
    rank: int | None
    cups: int
    best_cups: int
    matches_played: int
    matches_won: int


def player_seasons(player: Player) -> list[PlayerSeason]:
    """The seasons in which the player played a ranked match, newest first. A finalized season
    reads the player's frozen standing, if they have one; otherwise the season's statistics
    (a void may have taken a season's only ranked match back out)."""
    standings = {row.season_id: row for row in SeasonStanding.objects.filter(player=player)}
    stats = {row.season: row for row in SeasonStats.objects.filter(player=player)}
    current = current_season()
    rows = []
    for number in sorted(standings.keys() | stats.keys(), reverse=True):
        standing = standings.get(number)
        if standing is not None:
            rows.append(
                PlayerSeason(
                    number,
                    standing.rank,
                    standing.cups,
                    standing.best_cups,
                    standing.matches_played,
                    standing.matches_won,
                )
            )
            continue
        row = stats[number]
        if row.ranked_played == 0:
            continue
        rank = player_rank(player) if number == current.number else None
        rows.append(
            PlayerSeason(number, rank, row.cups, row.best_cups, row.ranked_played, row.ranked_won)
        )
    return rows


def player_ledger(player: Player) -> QuerySet[CupChange]:
    """The player's cups ledger, newest first (API.md ``/players/{id}/cups/``)."""
    return CupChange.objects.filter(player=player).order_by("-created_at", "-id")

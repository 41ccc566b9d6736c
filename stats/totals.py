"""A player's total now (KORT_RULES §10), while the soft reset that opened the current season is
still being written to the players' rows.

A season's end opens the next season in one short transaction and writes the reset to the
players' rows afterwards, a batch of players at a time (``ranking.season_end``), so the new
season's matches are finalized at once instead of waiting for a million rows. Meanwhile the
season holds the reset's floor (``Season.reset_floor``) and each player the number of the
season whose reset their row last had (``Player.reset_season``): a human player with an older
one has the reset still to come, and their total is the reset's result, not the stored cups.
Every read of a total goes through :func:`totals_now`; the ladder's one write path
(``ranking.ladder.ladder_apply``) folds a player's pending reset before any change of theirs
(``ranking.fold.SeasonReset``), so no change ever starts from a total the reset has not reached.

The players on the new season's board all had a change in it, so their stored cups already
include the reset: the board, its counts and its ranks read the stored rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from matches.kort.rules import season_reset_cups
from players.models import Player
from seasons.models import Season
from seasons.selectors import current_season


@dataclass(frozen=True)
class PendingReset:
    """The soft reset that opened ``season`` (floor ``floor``, taking effect ``at``), not yet
    written to every player's row."""

    season: int
    floor: int
    at: datetime


def pending_reset(season: Season) -> PendingReset | None:
    """The reset that opened ``season`` if it is still being written, else None."""
    if season.reset_floor is None:
        return None
    assert season.reset_at is not None  # a_pending_reset_has_its_moment
    return PendingReset(season.number, season.reset_floor, season.reset_at)


def reset_due(player: Player, pending: PendingReset | None) -> int | None:
    """The total ``player`` (as loaded) has once ``pending`` is written to their row, if it is
    still to be written and changes their cups; None otherwise (no reset pending, a bot, the
    reset already written, or a total it keeps)."""
    if pending is None or player.is_bot:
        return None
    if player.reset_season is not None and player.reset_season >= pending.season:
        return None
    after = season_reset_cups(player.cups, pending.floor)
    return None if after == player.cups else after


def totals_now(players: Iterable[Player], season: Season | None = None) -> dict[int, int]:
    """``{player id: cups now}``: each stored total, or what the current season's pending reset
    makes of it (one query for the current season unless ``season`` is given)."""
    pending = pending_reset(season or current_season())
    return {player.pk: _total(player, pending) for player in players}


def _total(player: Player, pending: PendingReset | None) -> int:
    after = reset_due(player, pending)
    return player.cups if after is None else after

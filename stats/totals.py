"""The soft reset still being written (KORT_RULES §10): the one module that knows it, and the
players as it makes them now.

A season's end opens the next season in one short transaction and writes the reset to the
players' rows afterwards, a batch of players at a time (``ranking.season_end``), so the new
season's matches are finalized at once instead of waiting for a million rows. Meanwhile the
season holds the reset's floor (``Season.reset_floor``) and each player the number of the
season whose reset their row last had (``Player.reset_season``): a human player with an older
one has the reset still to come, and is now what the reset makes of them.

- The reads take their players through :func:`players_now` (``ranking.selectors``,
  ``stats.selectors``): a player whose row has not had the reset is read with the total the
  reset gives them. Views, serializers and pages only format what those selectors return.
- The ladder's one writer (``ranking.ladder``) writes the reset of :func:`pending_reset` as an
  event of its fold (``ranking.fold.SeasonReset``): to every player, a batch at a time (the
  season's end); to a player before any change of theirs (``ladder_apply``), so no change
  starts from a total the reset has not reached; and to a player whose cups ledger is read
  (``ladder_reset_player``), so the ledger read is the stored rows, the reset's among them.

The players on the new season's board all had a change in it, so their stored cups already
include the reset: the board, its counts and its ranks read the stored rows.
"""

from __future__ import annotations

import copy
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


def players_now(players: Iterable[Player], season: Season | None = None) -> list[Player]:
    """The players as they are now, in their order: each one whose row the pending reset of
    ``season`` (the current season; one query for it unless given) has not reached yet is a
    copy with the fields the reset gives the row (its total, best total, last change and reset
    season, as ``ranking.fold`` steps it), so reading it again changes nothing; the others as
    loaded. For reading: the writers read the rows themselves, locked."""
    pending = pending_reset(season or current_season())
    now = list(players)
    if pending is None:
        return now
    for index, player in enumerate(now):
        after = reset_due(player, pending)
        if after is None:
            continue
        reset = copy.copy(player)
        reset.cups, reset.best_cups = after, max(player.best_cups, after)
        reset.cups_changed_at, reset.reset_season = pending.at, pending.season
        now[index] = reset
    return now

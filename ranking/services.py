"""Writes of the ladder: match finalization (KORT_RULES §7, §8, §10) and bans (API.md
"Conventions": banned players are on no leaderboard).

Finalization applies a match's cups exactly once: it claims the match with a conditional
``UPDATE ... WHERE status = 'completed'`` and proceeds only if that changed one row, and the
ledger's unique (match, player) row backs the same guarantee in the database. Finalization and
bans move the players on the season's board in the transaction that writes their rows
(``ranking.board.board_move``).
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from matches.models import Match, MatchStatus
from players.models import Player
from ranking.board import board_move, current_season_number, is_on_board
from ranking.effects import match_effect
from ranking.models import CupChange
from stats.services import stats_add


def match_finalize(match_id: int) -> bool:
    """Apply a completed match's cups (ranked only, humans only) and statistics (humans only),
    then mark it finalized. A ranked match puts its human players on the current season's
    board (KORT_RULES §10; a banned player stays off it while the ban lasts). Returns True if
    this call finalized it, False if it was not completed or already finalized (a second or
    concurrent run changes nothing).
    """
    with transaction.atomic():
        claimed = Match.objects.filter(pk=match_id, status=MatchStatus.COMPLETED).update(
            status=MatchStatus.FINALIZED
        )
        if not claimed:
            return False
        match = Match.objects.prefetch_related("rounds", "seats__player").get(pk=match_id)
        effects = match_effect(match)
        # The time is taken once the players' rows are locked, so matches sharing a player are
        # stamped in the order their cups were applied (the order rebuild_ladder replays).
        players = _lock_players(list(effects))
        now = timezone.now()
        if match.is_ranked:
            deltas = {pid: e.cups for pid, e in effects.items() if e.cups is not None}
            _cups_apply(match, players, deltas, now)
        for player_id, effect in effects.items():
            stats_add([player_id], effect.stats)
        Match.objects.filter(pk=match_id).update(finalized_at=now)
    return True


def _lock_players(player_ids: list[int]) -> list[Player]:
    """Lock the players' rows in id order, so concurrent finalizations cannot deadlock, and
    return them as they are once locked."""
    return list(Player.objects.select_for_update().filter(pk__in=player_ids).order_by("pk"))


def _cups_apply(match: Match, players: list[Player], deltas: dict[int, int], at) -> None:
    """Write the ledger rows, move each player's cups with ``F()`` updates (rows locked), put
    them on the current season's board and move them there."""
    CupChange.objects.bulk_create(
        CupChange(match=match, player_id=player_id, delta=delta, created_at=at)
        for player_id, delta in deltas.items()
    )
    season = current_season_number()
    moves = []
    for player in players:
        delta = deltas[player.pk]
        Player.objects.filter(pk=player.pk).update(
            cups=F("cups") + delta,
            best_cups=Greatest(F("best_cups"), F("cups") + delta),
            cups_changed_at=at,
            board_season=season,
        )
        before = player.cups if is_on_board(player, season) else None
        moves.append((before, None if player.is_banned else player.cups + delta))
    board_move(season, moves)


def player_ban(player: Player, banned: bool) -> bool:
    """Ban (``banned``) or unban the player: a banned player leaves the current season's board
    and cannot be seated in new matches; unbanned, they are back on it if it is the season of
    their last ranked match (API.md "Conventions", KORT_RULES §10). Returns True if it changed
    the player, False if they already were so; ``player.is_banned`` follows."""
    with transaction.atomic():
        locked = Player.objects.select_for_update().get(pk=player.pk)
        player.is_banned = banned
        if locked.is_banned == banned:
            return False
        season = current_season_number()
        was_on = is_on_board(locked, season)
        Player.objects.filter(pk=locked.pk).update(is_banned=banned)
        locked.is_banned = banned
        is_on = is_on_board(locked, season)
        board_move(season, [(locked.cups if was_on else None, locked.cups if is_on else None)])
    return True

"""Writes of the ladder: match finalization (KORT_RULES §7, §8).

Finalization applies a match's cups exactly once: it claims the match with a conditional
``UPDATE ... WHERE status = 'completed'`` and proceeds only if that changed one row, and the
ledger's unique (match, player) row backs the same guarantee in the database.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from matches.models import Match, MatchStatus
from players.models import Player
from ranking.effects import match_effect
from ranking.models import CupChange
from stats.services import stats_add


def match_finalize(match_id: int) -> bool:
    """Apply a completed match's cups (ranked only, humans only) and statistics (humans only),
    then mark it finalized. Returns True if this call finalized it, False if it was not
    completed or already finalized (a second or concurrent run changes nothing).
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
        _lock_players(list(effects))
        now = timezone.now()
        if match.is_ranked:
            _cups_apply(match, {pid: effect.cups for pid, effect in effects.items()}, now)
        for player_id, effect in effects.items():
            stats_add([player_id], effect.stats)
        Match.objects.filter(pk=match_id).update(finalized_at=now)
    return True


def _lock_players(player_ids: list[int]) -> None:
    """Lock the players' rows in id order, so concurrent finalizations cannot deadlock."""
    list(Player.objects.select_for_update().filter(pk__in=player_ids).order_by("pk"))


def _cups_apply(match: Match, deltas: dict[int, int], at) -> None:
    """Write the ledger rows and move each player's cups with ``F()`` updates (rows locked)."""
    CupChange.objects.bulk_create(
        CupChange(match=match, player_id=player_id, delta=delta, created_at=at)
        for player_id, delta in deltas.items()
    )
    for player_id, delta in sorted(deltas.items()):
        Player.objects.filter(pk=player_id).update(
            cups=F("cups") + delta,
            best_cups=Greatest(F("best_cups"), F("cups") + delta),
            cups_changed_at=at,
        )

"""Reads of the "My games" statistics (KORT_RULES §8, API.md "Players")."""

from players.models import Player
from stats.models import COUNT_FIELDS, OUTCOME_FIELDS, PlayerStats


def player_stats(player: Player) -> dict:
    """The player's statistics in the API's shape: counts, ``cups``, ``best_cups`` and
    ``outcomes`` ``{outcome: {"team": n, "opponents": m}}``. A player without a statistics row
    (no finalized match yet) reads zeros."""
    stats = PlayerStats.objects.filter(player=player).first() or PlayerStats(player=player)
    figures = {name: getattr(stats, name) for name in COUNT_FIELDS}
    figures["outcomes"] = {
        outcome.value: {"team": getattr(stats, team), "opponents": getattr(stats, opponents)}
        for outcome, (team, opponents) in OUTCOME_FIELDS.items()
    }
    figures["cups"] = player.cups
    figures["best_cups"] = player.best_cups
    return figures

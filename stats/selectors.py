"""Reads of the "My games" statistics (KORT_RULES §8, §10; API.md "Players", "Seasons")."""

from matches.kort.rules import STATS_SIDES
from players.models import Player
from stats.models import COUNT_FIELDS, OUTCOME_FIELDS, PlayerStats, SeasonStats, StatsCounts


def player_stats(player: Player, season: int | None = None) -> dict:
    """The player's statistics in the API's shape: counts, ``cups``, ``best_cups`` and
    ``outcomes`` ``{outcome: {"team": n, "opponents": m}}``; over all time, or over the matches
    of ``season`` (a season number), with that season's cups (at its end, or now for the
    current season) and best cups. No match yet (in the season) reads zeros."""
    if season is None:
        stats = PlayerStats.objects.filter(player=player).first() or PlayerStats(player=player)
        return _figures(stats, cups=player.cups, best_cups=player.best_cups)
    row = SeasonStats.objects.filter(player=player, season=season).first()
    if row is None:
        return _figures(PlayerStats(player=player), cups=0, best_cups=0)
    return _figures(row, cups=row.cups, best_cups=row.best_cups)


def _figures(stats: StatsCounts, *, cups: int, best_cups: int) -> dict:
    figures = {name: getattr(stats, name) for name in COUNT_FIELDS}
    figures["outcomes"] = {
        outcome.value: {
            side: getattr(stats, name) for side, name in zip(STATS_SIDES, names, strict=True)
        }
        for outcome, names in OUTCOME_FIELDS.items()
    }
    figures["cups"] = cups
    figures["best_cups"] = best_cups
    return figures


def season_figures(season: int, player_ids: list[int]) -> dict[int, SeasonStats]:
    """The season's statistics rows of the given players, by player id (one query)."""
    return {
        row.player_id: row
        for row in SeasonStats.objects.filter(season=season, player_id__in=player_ids)
    }

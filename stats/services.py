"""Writes of the "My games" statistics (KORT_RULES §8): fold a finalized match in."""

from collections.abc import Iterable

from django.db.models import F

from matches.kort.rules import StatsLine
from stats.models import COUNT_FIELDS, OUTCOME_FIELDS, PlayerStats


def stats_values(line: StatsLine) -> dict[str, int]:
    """The model field values of a statistics line."""
    values = {name: getattr(line, name) for name in COUNT_FIELDS}
    for outcome, (team_field, opponents_field) in OUTCOME_FIELDS.items():
        values[team_field], values[opponents_field] = line.outcomes[outcome]
    return values


def stats_add(player_ids: Iterable[int], line: StatsLine) -> None:
    """Add ``line`` to each player's statistics with ``F()`` updates (safe under concurrent
    finalizations); creates missing statistics rows."""
    player_ids = sorted(player_ids)
    if not player_ids:
        return
    PlayerStats.objects.bulk_create(
        [PlayerStats(player_id=pid) for pid in player_ids], ignore_conflicts=True
    )
    increments = {name: F(name) + n for name, n in stats_values(line).items() if n}
    PlayerStats.objects.filter(player_id__in=player_ids).update(**increments)

"""Writes of the "My games" statistics (KORT_RULES §8): fold a finalized match in, for all time
and for its season (§10), or take a voided one back out (§11); and the season's cups."""

from collections.abc import Iterable, Mapping

from django.db.models import Case, F, Value, When
from django.db.models.functions import Greatest

from matches.kort.rules import StatsLine
from stats.models import COUNT_FIELDS, OUTCOME_FIELDS, PlayerStats, SeasonStats


def stats_values(line: StatsLine) -> dict[str, int]:
    """The model field values of a statistics line."""
    values = {name: getattr(line, name) for name in COUNT_FIELDS}
    for outcome, (team_field, opponents_field) in OUTCOME_FIELDS.items():
        values[team_field], values[opponents_field] = line.outcomes[outcome]
    return values


def stats_add(player_ids: Iterable[int], line: StatsLine, *, season: int, ranked: bool) -> None:
    """Add ``line`` to each player's all-time statistics and to those of ``season``, with
    ``F()`` updates (safe under concurrent finalizations); ``-line`` takes a voided match back
    out (§11). A ranked match's line also counts in the season's ranked matches: the first
    puts the player on that season's leaderboard, and a void of the last takes them off (§10).

    Creates missing all-time rows; the season's rows must be open (:func:`season_stats_open`).
    """
    player_ids = sorted(player_ids)
    if not player_ids:
        return
    PlayerStats.objects.bulk_create(
        [PlayerStats(player_id=pid) for pid in player_ids], ignore_conflicts=True
    )
    values = stats_values(line)
    increments = {name: F(name) + n for name, n in values.items() if n}
    PlayerStats.objects.filter(player_id__in=player_ids).update(**increments)
    if ranked:
        ranked_values = {"ranked_played": line.matches_played, "ranked_won": line.matches_won}
        increments |= {name: F(name) + n for name, n in ranked_values.items() if n}
    SeasonStats.objects.filter(season=season, player_id__in=player_ids).update(**increments)


def season_stats_open(season: int, totals: Mapping[int, int]) -> None:
    """Open each player's statistics row of ``season`` if it has none, starting from the cup
    total ``totals[player id]`` they have at that moment: the total the season opened with,
    since every cup change of a season opens the row first (§10)."""
    SeasonStats.objects.bulk_create(
        [
            SeasonStats(player_id=pid, season=season, cups=total, best_cups=total)
            for pid, total in sorted(totals.items())
        ],
        ignore_conflicts=True,
    )


def season_cups_record(season: int, totals: Mapping[int, int]) -> None:
    """After a cup change in ``season`` (a match or a void; rows open): each player's season
    ``cups`` become their new total ``totals[player id]`` and ``best_cups`` the higher of the
    two (§10)."""
    if not totals:
        return
    # One statement whatever the players: each row's new total picked by its player.
    total = Case(*(When(player_id=pid, then=Value(n)) for pid, n in sorted(totals.items())))
    SeasonStats.objects.filter(player_id__in=totals, season=season).update(
        cups=total, best_cups=Greatest(F("best_cups"), total)
    )

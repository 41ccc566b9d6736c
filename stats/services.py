"""Writes of the "My games" statistics (KORT_RULES §8): fold a finalized match in, for all time
and for its season (§10), or take a voided one back out (§11); and the season's cups."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bulk.updates import (
    Expression,
    Upsert,
    added_by_key,
    at_least,
    by_key,
    insert_rows,
    update_rows,
    vendor_of,
)
from matches.kort.rules import StatsLine
from stats.models import COUNT_FIELDS, OUTCOME_FIELDS, PlayerStats, SeasonStats


def stats_values(line: StatsLine) -> dict[str, int]:
    """The model field values of a statistics line."""
    values = {name: getattr(line, name) for name in COUNT_FIELDS}
    for outcome, (team_field, opponents_field) in OUTCOME_FIELDS.items():
        values[team_field], values[opponents_field] = line.outcomes[outcome]
    return values


@dataclass(frozen=True)
class SeasonCups:
    """A change of the players' cup totals as the season statistics see it: the totals
    ``before`` (every player of the change, by id) and ``after`` (those whose total moved), in
    ``season`` (None: a season's reset, which the season rows do not follow, §10)."""

    season: int | None
    before: Mapping[int, int]
    after: Mapping[int, int]


def stats_follow(
    cups: SeasonCups,
    lines: Sequence[tuple[StatsLine, Sequence[int]]],
    *,
    season: int | None,
    ranked: bool,
) -> None:
    """The statistics of one change of the ladder (``ranking.ladder.ladder_apply``): the
    season rows of ``cups.season`` follow the moved totals (opened with the totals before, then
    their ``cups`` and ``best_cups`` recorded, §10), and ``lines`` are added to all-time and to
    ``season``'s statistics (:func:`stats_add`; rows of ``season`` opened with the totals
    before when no total moved)."""
    if cups.season is not None and cups.after:
        season_stats_open(cups.season, {pid: cups.before[pid] for pid in cups.after})
        season_cups_record(cups.season, cups.after)
    if lines:
        assert season is not None
        if not cups.after:
            season_stats_open(season, cups.before)
        stats_add(lines, season=season, ranked=ranked)


def stats_add(
    teams: Sequence[tuple[StatsLine, Sequence[int]]], *, season: int, ranked: bool
) -> None:
    """Add each team's ``line`` to its players' all-time statistics and to those of
    ``season``: ``teams`` is ``(line, player ids)`` pairs; ``-line`` takes a voided match back
    out (§11). A ranked match's line also counts in the season's ranked matches: the first
    puts the player on that season's leaderboard, and a void of the last takes them off (§10).

    Two updates whatever the players (all time, the season), each adding to every column its
    player's amount in the statement (safe under concurrent finalizations, like ``F()``).
    Creates missing all-time rows; the season's rows must be open (:func:`season_stats_open`).
    """
    player_ids = sorted(pid for _, ids in teams for pid in ids)
    if not player_ids:
        return
    insert_rows(PlayerStats, [{"player_id": pid} for pid in player_ids], skip_existing=True)
    values = [(stats_values(line), ids) for line, ids in teams]
    update_rows(PlayerStats, "player_id", player_ids, _added(values))
    if ranked:
        values = [
            (counts | {"ranked_played": line.matches_played, "ranked_won": line.matches_won}, ids)
            for (counts, ids), (line, _) in zip(values, teams, strict=True)
        ]
    update_rows(SeasonStats, "player_id", player_ids, _added(values), season=season)


def _added(values: Sequence[tuple[dict[str, int], Sequence[int]]]) -> dict[str, Expression]:
    """Each column that some team's ``values`` move, raised by the amount of the row's team."""
    columns = sorted({name for counts, _ in values for name, n in counts.items() if n})
    return {
        name: added_by_key(name, "player_id", [(counts[name], ids) for counts, ids in values])
        for name in columns
    }


def season_stats_open(season: int, totals: Mapping[int, int]) -> None:
    """Open each player's statistics row of ``season`` if it has none, starting from the cup
    total ``totals[player id]`` they have at that moment: the total the season opened with,
    since every cup change of a season opens the row first (§10)."""
    insert_rows(
        SeasonStats,
        [
            {"player_id": pid, "season": season, "cups": total, "best_cups": total}
            for pid, total in sorted(totals.items())
        ],
        skip_existing=True,
    )


def season_cups_record(season: int, totals: Mapping[int, int]) -> None:
    """After a cup change in ``season`` (a match or a void; rows open): each player's season
    ``cups`` become their new total ``totals[player id]`` and ``best_cups`` the higher of the
    two (§10). One statement whatever the players."""
    total = by_key("player_id", totals)
    vendor = vendor_of(SeasonStats)
    update_rows(
        SeasonStats,
        "player_id",
        totals.keys(),
        {"cups": total, "best_cups": at_least("best_cups", total, vendor=vendor)},
        season=season,
    )


def stats_replace(
    totals: Mapping[int, Mapping[str, int]],
    seasons: Mapping[tuple[int, int], Mapping[str, int]],
    stale: Iterable[tuple[int, int]],
) -> None:
    """Write recomputed statistics over the stored ones (``manage.py rebuild_ladder --fix``):
    each player's all-time row from ``totals`` (by player id), each season row from
    ``seasons`` (by ``(player id, season)``), and remove the season rows ``stale``. A few
    statements whatever the rows (inserts that replace the row they meet, one delete per
    season); a row written keeps its key."""
    if totals:
        columns = sorted({name for values in totals.values() for name in values})
        insert_rows(
            PlayerStats,
            [{"player_id": pid, **totals[pid]} for pid in sorted(totals)],
            replacing=Upsert(("player_id",), columns),
        )
    by_season: dict[int, list[int]] = {}
    for player_id, season in stale:
        by_season.setdefault(season, []).append(player_id)
    for season, player_ids in sorted(by_season.items()):
        SeasonStats.objects.filter(season=season, player_id__in=sorted(player_ids)).delete()
    if seasons:
        columns = sorted({name for values in seasons.values() for name in values})
        insert_rows(
            SeasonStats,
            [
                {"player_id": pid, "season": number, **seasons[pid, number]}
                for pid, number in sorted(seasons)
            ],
            replacing=Upsert(("player_id", "season"), columns),
        )

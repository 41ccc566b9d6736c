"""What a finalized match does to the ladder (KORT_RULES §7, §8): the one fold step that
finalization applies and ``rebuild_ladder`` replays.

It trusts what was stored per round and per match (outcome, winner, wins). Bots get neither
cups nor statistics.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.db import connections, router

from matches.kort.rules import (
    Mode,
    RoundResult,
    StatsLine,
    Team,
    match_cups,
    match_stats,
    team_of,
)
from matches.models import Match, Round, RoundStatus, Seat, stored_result
from players.models import Player


@dataclass(frozen=True)
class PlayerEffect:
    """What one match gives one human player: ``cups`` (None for an unranked match, which
    moves no cups) and the statistics line to add."""

    cups: int | None
    stats: StatsLine


@dataclass(frozen=True)
class MatchFacts:
    """What the effect of a completed match is computed from: its mode, winner and wins, its
    rounds' results in order, and the team of each human player by player id (bots get
    nothing); and the season it was completed in; when it was completed and the team of
    every seated player, bots too (KORT_RULES §12)."""

    ranked: bool
    winner: Team
    wins: dict[Team, int]
    results: list[RoundResult]
    human_teams: dict[int, Team]
    season: int
    completed_at: datetime | None = None
    teams: dict[int, Team] = field(default_factory=dict)


def facts_of(match: Match) -> MatchFacts:
    """The facts of a completed ``match`` whose ``rounds`` and ``seats`` with their players
    are read along (prefetch ``rounds`` and ``seats__player`` to read many matches)."""
    assert match.winner is not None  # a completed match has its winner (winner_iff_match_over)
    return MatchFacts(
        ranked=match.is_ranked,
        winner=Team(match.winner),
        wins=match.wins,
        results=[r.result for r in sorted(match.rounds.all(), key=lambda r: r.number)],
        human_teams={s.player_id: s.team for s in match.seats.all() if not s.player.is_bot},
        season=_season_over(match.pk, match.season),
        completed_at=match.completed_at,
        teams={s.player_id: s.team for s in match.seats.all()},
    )


def completed_facts(match_id: int) -> MatchFacts | None:
    """The facts of match ``match_id`` read in two plain statements (finalization's hot
    path), or None if it has no winner yet."""
    match, seat, player, round_ = (model._meta.db_table for model in (Match, Seat, Player, Round))
    with connections[router.db_for_write(Match)].cursor() as cursor:
        cursor.execute(
            f'SELECT m."mode", m."winner", m."wins_a", m."wins_b", m."season", s."seat", '
            f's."player_id", p."is_bot", m."completed_at" FROM "{match}" m '
            f'JOIN "{seat}" s ON s."match_id" = m."id" '
            f'JOIN "{player}" p ON p."id" = s."player_id" WHERE m."id" = %s',
            [match_id],
        )
        seats = cursor.fetchall()
        if not seats or seats[0][1] is None:
            return None
        cursor.execute(
            f'SELECT "trump_seat", "outcome", "winner", "wins_awarded", "shutout_team" '
            f'FROM "{round_}" WHERE "match_id" = %s AND "status" = %s ORDER BY "number"',
            [match_id, RoundStatus.FINISHED.value],
        )
        results = [stored_result(*row) for row in cursor.fetchall()]
    mode, winner, wins_a, wins_b, season = seats[0][:5]
    return MatchFacts(
        ranked=mode == Mode.RANKED,
        winner=Team(winner),
        wins={Team.A: wins_a, Team.B: wins_b},
        results=results,
        human_teams={pid: team_of(number) for *_, number, pid, bot, _ in seats if not bot},
        season=_season_over(match_id, season),
        completed_at=_as_time(seats[0][8]),
        teams={pid: team_of(number) for *_, number, pid, _, _ in seats},
    )


def _as_time(value: datetime | str | None) -> datetime | None:
    """A time column as a plain statement reads it: an aware time on PostgreSQL, a naive UTC
    time (or its text) on SQLite."""
    if value is None:
        return None
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _season_over(match_id: int, season: int | None) -> int:
    """The season of a match over, which its status guarantees (season_iff_match_over)."""
    if season is None:
        raise ValueError(f"match {match_id} is over without a season (season_iff_match_over)")
    return season


def match_effect(facts: MatchFacts) -> dict[int, PlayerEffect]:
    """The effect of a completed match (its ``facts``) on each of its human players, by
    player id in increasing order (the lock order): cups from ``match_cups`` (ranked matches
    only, §7) and statistics from ``match_stats`` (§8), over its rounds in order."""
    cups = match_cups(facts.results, facts.winner, facts.wins) if facts.ranked else None
    lines = {team: match_stats(facts.results, facts.winner, team) for team in Team}
    return {
        player_id: PlayerEffect(cups=None if cups is None else cups[team], stats=lines[team])
        for player_id, team in sorted(facts.human_teams.items())
    }

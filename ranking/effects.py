"""What a finalized match does to the ladder (KORT_RULES §7, §8): the one fold step that
finalization applies and ``rebuild_ladder`` replays.

It trusts what was stored per round and per match (outcome, winner, wins). Bots get neither
cups nor statistics.
"""

from __future__ import annotations

from dataclasses import dataclass

from matches.kort.rules import StatsLine, Team, match_cups, match_stats
from matches.models import Match


@dataclass(frozen=True)
class PlayerEffect:
    """What one match gives one human player: ``cups`` (None for an unranked match, which
    moves no cups) and the statistics line to add."""

    cups: int | None
    stats: StatsLine


def match_effect(match: Match) -> dict[int, PlayerEffect]:
    """The effect of a completed ``match`` on each of its human players, by player id in
    increasing order (the lock order): cups from ``match_cups`` (ranked matches only, §7) and
    statistics from ``match_stats`` (§8), over its rounds in order.

    Reads ``match.rounds`` and ``match.seats`` with their players; prefetch them (``rounds``,
    ``seats__player``) to read many matches without a query per match.
    """
    results = [r.result for r in sorted(match.rounds.all(), key=lambda r: r.number)]
    assert match.winner is not None  # a completed match has its winner (winner_iff_match_over)
    winner = Team(match.winner)
    cups = match_cups(results, winner, match.wins) if match.is_ranked else None
    lines = {team: match_stats(results, winner, team) for team in Team}
    humans = sorted(
        (seat for seat in match.seats.all() if not seat.player.is_bot),
        key=lambda seat: seat.player_id,
    )
    return {
        seat.player_id: PlayerEffect(
            cups=None if cups is None else cups[seat.team], stats=lines[seat.team]
        )
        for seat in humans
    }

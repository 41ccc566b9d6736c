"""Rebuild the ladder from the stored rounds (KORT_RULES §7, §8; ``manage.py rebuild_ladder``).

Finalization folds each match into the players' cups, ledger rows and statistics as it happens.
This module replays the same fold over the history: every finalized match in finalization
order (``finalized_at``, then id), each through ``ranking.effects.match_effect``, the step
finalization applies, whose effects it adds up.

Recomputed per player: ``cups`` (the sum of their ledger deltas), ``best_cups`` (the running
maximum, starting at 0), ``cups_changed_at`` (the finalization time of their last ranked
match), ``board_season`` (the season of that match) and every field of their statistics row;
per ranked match and human player, the ledger row ``(delta, created_at)``; the counts of the
current season's board (``ranking.board``) from the recomputed players. A fix writes the
players, then counts the board again from their rows.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.db.models import QuerySet

from matches.kort.rules import StatsLine
from matches.models import Match, MatchStatus
from players.models import Player
from ranking.board import board_build, board_differences, current_season_number
from ranking.effects import match_effect
from ranking.models import CupChange
from stats.models import PlayerStats
from stats.services import stats_values

CUP_FIELDS = ("cups", "best_cups", "cups_changed_at", "board_season")
LEDGER_FIELDS = ("delta", "created_at")


@dataclass
class PlayerTotals:
    """One player's ladder figures as the replay recomputes them."""

    cups: int = 0
    best_cups: int = 0
    cups_changed_at: datetime | None = None
    board_season: int | None = None
    stats: StatsLine = field(default_factory=StatsLine)


@dataclass
class Replay:
    """The ladder recomputed from the history: totals by player id, and the ledger as
    ``{(match id, player id): {"delta": cups, "created_at": time}}``."""

    players: defaultdict[int, PlayerTotals] = field(
        default_factory=lambda: defaultdict(PlayerTotals)
    )
    ledger: dict[tuple[int, int], dict] = field(default_factory=dict)


@dataclass(frozen=True)
class Difference:
    """A stored value that the replay does not reach. ``subject`` names the player or the
    ledger row; ``None`` stands for a missing row (stored) or a row that should not exist
    (recomputed)."""

    subject: str
    field: str
    stored: object
    recomputed: object

    def __str__(self) -> str:
        return (
            f"{self.subject}: {self.field} stored {_shown(self.stored)}, "
            f"recomputed {_shown(self.recomputed)}"
        )


def _shown(value) -> str:
    if value is None:
        return "none"
    return value.isoformat() if isinstance(value, datetime) else str(value)


def finalized_matches() -> QuerySet[Match]:
    """Finalized matches in finalization order, with their rounds and seated players."""
    return (
        Match.objects.filter(status=MatchStatus.FINALIZED)
        .order_by("finalized_at", "id")
        .prefetch_related("rounds", "seats__player")
    )


def ladder_replay(matches: Iterable[Match]) -> Replay:
    """Fold ``matches`` (finalized, in finalization order, rounds and seats prefetched) into
    recomputed totals and ledger rows (KORT_RULES §7, §8)."""
    replay = Replay()
    for match in matches:
        _match_replay(replay, match)
    return replay


def _match_replay(replay: Replay, match: Match) -> None:
    for player_id, effect in match_effect(match).items():
        totals = replay.players[player_id]
        totals.stats = totals.stats + effect.stats
        if effect.cups is None:
            continue
        totals.cups += effect.cups
        totals.best_cups = max(totals.best_cups, totals.cups)
        totals.cups_changed_at = match.finalized_at
        # Every match so far belongs to the current season (KORT_RULES §10).
        totals.board_season = current_season_number()
        replay.ledger[(match.pk, player_id)] = {
            "delta": effect.cups,
            "created_at": match.finalized_at,
        }


def ladder_differences(replay: Replay) -> list[Difference]:
    """Every stored player field, statistics field and ledger row that differs from the
    replay: players by id first, then ledger rows by (match id, player id), then the board's
    counts that differ from the replay's (:func:`board_check`)."""
    players = Player.objects.order_by("pk").in_bulk()
    stats = PlayerStats.objects.in_bulk()
    differences = []
    for player in players.values():
        totals = replay.players.get(player.pk, PlayerTotals())
        row = stats.get(player.pk) or PlayerStats(player=player)
        recomputed = {name: getattr(totals, name) for name in CUP_FIELDS}
        recomputed |= stats_values(totals.stats)
        stored = {name: getattr(player if name in CUP_FIELDS else row, name) for name in recomputed}
        differences += _compared(_player_label(player), stored, recomputed)
    ledger = _stored_ledger()
    for match_id, player_id in sorted(ledger.keys() | replay.ledger.keys()):
        subject = f"ledger match {match_id}, {_player_label(players[player_id])}"
        stored = ledger.get((match_id, player_id), dict.fromkeys(LEDGER_FIELDS))
        recomputed = replay.ledger.get((match_id, player_id), dict.fromkeys(LEDGER_FIELDS))
        differences += _compared(subject, stored, recomputed)
    return differences + board_check(players.values(), replay)


def board_check(players: Iterable[Player], replay: Replay) -> list[Difference]:
    """Every count of the current season's board that differs from the board the replay
    gives (``ranking.board.board_differences``): by cups, then the season's total."""
    season = current_season_number()
    counted: Counter[int] = Counter()
    for player in players:
        totals = replay.players.get(player.pk, PlayerTotals())
        if not (player.is_bot or player.is_banned) and totals.board_season == season:
            counted[totals.cups] += 1
    return [
        Difference(
            f"board of season {season}" + ("" if cups is None else f", {cups} cups"),
            "players" if cups is not None else "total",
            stored,
            recomputed,
        )
        for cups, stored, recomputed in board_differences(season, counted)
    ]


def _player_label(player: Player) -> str:
    return f"player {player.username} (id {player.pk})"


def _stored_ledger() -> dict[tuple[int, int], dict]:
    rows = CupChange.objects.values_list("match_id", "player_id", *LEDGER_FIELDS)
    return {
        (match_id, player_id): {"delta": delta, "created_at": created_at}
        for match_id, player_id, delta, created_at in rows
    }


def _compared(subject: str, stored: dict, recomputed: dict) -> list[Difference]:
    return [
        Difference(subject, name, stored[name], value)
        for name, value in recomputed.items()
        if stored[name] != value
    ]


def ladder_fix(replay: Replay) -> None:
    """Write the replay over what is stored: every player's cups fields and statistics row,
    and the ledger (rows added, changed or removed); then count the current season's board
    again from the players. Call inside a transaction."""
    players = list(Player.objects.order_by("pk"))
    for player in players:
        totals = replay.players.get(player.pk, PlayerTotals())
        for name in CUP_FIELDS:
            setattr(player, name, getattr(totals, name))
        PlayerStats.objects.update_or_create(player=player, defaults=stats_values(totals.stats))
    Player.objects.bulk_update(players, CUP_FIELDS)
    for key in _stored_ledger().keys() - replay.ledger.keys():
        CupChange.objects.filter(match_id=key[0], player_id=key[1]).delete()
    for (match_id, player_id), row in replay.ledger.items():
        CupChange.objects.update_or_create(match_id=match_id, player_id=player_id, defaults=row)
    board_build(current_season_number())


def ladder_rebuild(
    *, fix: bool, track: Callable[[Iterable[Match], int], Iterable[Match]] | None = None
) -> list[Difference]:
    """Replay the history and return every difference from what is stored; with ``fix``,
    also write the replay in the same transaction.

    ``track(matches, total)`` may wrap the matches, e.g. in a progress bar. With ``fix`` every
    player and statistics row is locked first (players in id order, as finalization locks
    them), so a finalization that runs meanwhile waits and then applies on top of the fix.
    """
    with transaction.atomic():
        if fix:
            list(Player.objects.select_for_update().order_by("pk").values_list("pk"))
            list(PlayerStats.objects.select_for_update().order_by("pk").values_list("pk"))
        matches = finalized_matches()
        if track is not None:
            matches = track(matches.iterator(chunk_size=500), matches.count())
        replay = ladder_replay(matches)
        differences = ladder_differences(replay)
        if fix and differences:
            ladder_fix(replay)
    return differences

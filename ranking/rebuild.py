"""Rebuild the ladder from its history (KORT_RULES §7, §8, §10, §11; ``manage.py
rebuild_ladder``).

Finalization, the season ends and voids fold each event into the players' cups, ledger rows
and statistics as it happens. This module replays the same folds over the history, in the
order in which they were applied: season by season (the season a ledger row belongs to), first
the soft reset that opened the season, then the season's events in time order. The events are
every finalized (or voided) match at its finalization time, each through
``ranking.effects.match_effect``, the step finalization applies; every void at its time, which
takes the same effect back out; and, for every finalized season, the reset that opened the
next one, with the floor its end used, stamped when its rows were written.

Recomputed per player: ``cups`` (the sum of their ledger deltas), ``best_cups`` (the running
maximum, starting at 0), ``cups_changed_at`` (the time of their last cup change) and every
field of their statistics row; per player and season, the season's statistics row (counts,
ranked matches, cups and best cups, counting from the total the season opened with); the ledger
row of each cup change (``delta``, ``cups_after``, ``season``, ``created_at``). The frozen final
standings of each finalized season are checked against the replay's board at that season's end
(ranks among the players the standings hold, and anyone eligible then who is missing and not
banned now) but never rewritten. The current season's board: who is on it (``board_season``)
and its counts (``ranking.board``) from the recomputed players; a fix counts it again.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import NamedTuple

from django.db import transaction
from django.db.models import QuerySet

from domain.errors import Conflict
from matches.kort.rules import StatsLine, season_reset_cups
from matches.models import Match, MatchStatus
from players.models import Player, in_leaderboard_order, may_be_on_a_board
from ranking.board import board_differences, current_season_number
from ranking.effects import facts_of, match_effect
from ranking.ladder import LadderRepair, LedgerKey, ladder_repair
from ranking.models import CupChange, CupKind, SeasonEnd, SeasonStanding
from seasons.models import Season, SeasonStatus
from stats.models import PlayerStats, SeasonStats, counts_for_the_board
from stats.services import stats_values

CUP_FIELDS = ("cups", "best_cups", "cups_changed_at")
LEDGER_FIELDS = ("delta", "created_at", "cups_after", "season")
LEDGER_NAMED_BY = ("delta", "created_at")
"""A ledger row found on one side only is shown by what it moves and when."""
SEASON_FIELDS = ("ranked_played", "ranked_won", "cups", "best_cups")
SEASON_NAMED_BY = ("matches_played", "ranked_played", "cups")
STANDING_FIELDS = ("rank", "cups", "best_cups", "matches_played", "matches_won")
STANDING_NAMED_BY = ("rank", "cups")


@dataclass
class PlayerTotals:
    """One player's ladder figures as the replay recomputes them."""

    cups: int = 0
    best_cups: int = 0
    cups_changed_at: datetime | None = None
    stats: StatsLine = field(default_factory=StatsLine)


@dataclass
class SeasonTotals:
    """One player's figures of one season as the replay recomputes them."""

    cups: int
    best_cups: int
    stats: StatsLine = field(default_factory=StatsLine)
    ranked_played: int = 0
    ranked_won: int = 0

    def values(self) -> dict:
        figures = stats_values(self.stats)
        return figures | {name: getattr(self, name) for name in SEASON_FIELDS}


class BoardEntry(NamedTuple):
    """A player's row of a season's board at the season's end, as the replay finds it."""

    cups: int
    cups_changed_at: datetime | None
    best_cups: int
    matches_played: int
    matches_won: int


@dataclass(frozen=True)
class History:
    """What the replay reads besides the matches: the humans (by id: banned now?), every
    finalized season's reset floor, and when each stored reset row was written."""

    humans: dict[int, bool]
    reset_floors: dict[int, int]
    finalized_at: dict[int, datetime]
    reset_times: dict[tuple[int, int], datetime]


@dataclass
class Replay:
    """The ladder recomputed from the history: totals by player id, season totals by (player
    id, season), the ledger by :data:`LedgerKey`, and each finalized season's board at its end
    by player id."""

    players: defaultdict[int, PlayerTotals] = field(
        default_factory=lambda: defaultdict(PlayerTotals)
    )
    seasons: dict[tuple[int, int], SeasonTotals] = field(default_factory=dict)
    ledger: dict[LedgerKey, dict] = field(default_factory=dict)
    boards: dict[int, dict[int, BoardEntry]] = field(default_factory=dict)

    def season_row(self, player_id: int, season: int) -> SeasonTotals:
        """The player's row of ``season``, opened with their total of this moment."""
        key = (player_id, season)
        if key not in self.seasons:
            total = self.players[player_id].cups
            self.seasons[key] = SeasonTotals(cups=total, best_cups=total)
        return self.seasons[key]

    def cups_change(self, key: LedgerKey, player_id: int, delta: int, season: int, at) -> None:
        """One cup change, as ``ranking.ladder.ladder_apply`` writes it."""
        totals = self.players[player_id]
        if key[0] != CupKind.SEASON_RESET:
            row = self.season_row(player_id, season)
        totals.cups += delta
        totals.best_cups = max(totals.best_cups, totals.cups)
        totals.cups_changed_at = at
        self.ledger[key] = {
            "delta": delta,
            "created_at": at,
            "cups_after": totals.cups,
            "season": season,
        }
        if key[0] != CupKind.SEASON_RESET:
            row.cups = totals.cups
            row.best_cups = max(row.best_cups, totals.cups)


@dataclass(frozen=True)
class Difference:
    """A stored value that the replay does not reach. ``subject`` names the player or the
    row; ``None`` stands for a missing row (stored) or a row that should not exist
    (recomputed)."""

    subject: str
    field: str
    stored: object
    recomputed: object
    frozen: bool = False
    """In a finalized season's standings, which are reported and never rewritten."""

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
    """Finalized and voided matches in finalization order, with their rounds and players."""
    return (
        Match.objects.filter(status__in=(MatchStatus.FINALIZED, MatchStatus.VOID))
        .order_by("finalized_at", "id")
        .prefetch_related("rounds", "seats__player")
    )


def stored_history() -> History:
    """The humans, the finalized seasons' reset floors and end times, and the stored reset
    rows' times."""
    ends = SeasonEnd.objects.filter(season__status=SeasonStatus.FINALIZED)
    resets = CupChange.objects.filter(kind=CupKind.SEASON_RESET)
    return History(
        humans=dict(Player.objects.filter(is_bot=False).values_list("pk", "is_banned")),
        reset_floors=dict(ends.values_list("season_id", "reset_floor")),
        finalized_at={
            number: at
            for number, at in ends.values_list("season_id", "season__finalized_at")
            if at is not None
        },
        reset_times={
            (season, player_id): at
            for season, player_id, at in resets.values_list("season", "player_id", "created_at")
        },
    )


def ladder_replay(matches: Iterable[Match], history: History) -> Replay:
    """Fold ``matches`` (finalized or void, rounds and seats prefetched) and the season ends
    of ``history`` into recomputed totals, season rows, ledger rows and end-of-season boards,
    in the order they were applied (KORT_RULES §7, §8, §10, §11)."""
    events: list[tuple[tuple, Callable[[Replay], None]]] = []
    for match in matches:
        effects = match_effect(facts_of(match))
        season = _season_of(match.season)
        key = (season, 1, match.finalized_at, 0, match.pk)
        events.append((key, _finalized(match, season, effects)))
        if match.status == MatchStatus.VOID:
            void_season = _season_of(match.void_season)
            key = (void_season, 1, match.voided_at, 1, match.pk)
            events.append((key, _voided(match, season, void_season, effects)))
    for season, floor in history.reset_floors.items():
        events.append(((season + 1, 0), _reset(season, floor, history)))
    replay = Replay()
    for _, apply in sorted(events, key=lambda event: event[0]):
        apply(replay)
    return replay


def _season_of(number: int | None) -> int:
    """The season of a match over (or of its void), which its status guarantees."""
    if number is None:
        raise ValueError("a match over has its season (constraint season_iff_match_over)")
    return number


def _finalized(match: Match, season: int, effects) -> Callable[[Replay], None]:
    def apply(replay: Replay) -> None:
        for player_id, effect in effects.items():
            _stats_add(replay, player_id, match, season, effect.stats)
            if effect.cups is not None:
                key = (CupKind.MATCH, match.pk, player_id)
                replay.cups_change(key, player_id, effect.cups, season, match.finalized_at)

    return apply


def _voided(match: Match, season: int, void_season: int, effects) -> Callable[[Replay], None]:
    def apply(replay: Replay) -> None:
        for player_id, effect in effects.items():
            _stats_add(replay, player_id, match, season, -effect.stats)
            if effect.cups is not None:
                key = (CupKind.VOID, match.pk, player_id)
                replay.cups_change(key, player_id, -effect.cups, void_season, match.voided_at)

    return apply


def _stats_add(replay: Replay, player_id: int, match: Match, season: int, line: StatsLine) -> None:
    totals = replay.players[player_id]
    totals.stats = totals.stats + line
    row = replay.season_row(player_id, season)
    row.stats = row.stats + line
    if match.is_ranked:
        row.ranked_played += line.matches_played
        row.ranked_won += line.matches_won


def _reset(season: int, floor: int, history: History) -> Callable[[Replay], None]:
    """The end of ``season``: its board is taken, then the soft reset opens the next one."""

    def apply(replay: Replay) -> None:
        replay.boards[season] = {
            player_id: BoardEntry(
                replay.players[player_id].cups,
                replay.players[player_id].cups_changed_at,
                row.best_cups,
                row.ranked_played,
                row.ranked_won,
            )
            for (player_id, number), row in replay.seasons.items()
            if number == season
            and counts_for_the_board(row.ranked_played)
            and player_id in history.humans
        }
        for player_id in sorted(history.humans):
            cups = replay.players[player_id].cups
            delta = season_reset_cups(cups, floor) - cups
            if delta:
                at = history.reset_times.get((season + 1, player_id), history.finalized_at[season])
                key = (CupKind.SEASON_RESET, season + 1, player_id)
                replay.cups_change(key, player_id, delta, season + 1, at)

    return apply


# --- differences ----------------------------------------------------------------------------


def ladder_differences(replay: Replay, history: History) -> list[Difference]:
    """Every stored value that differs from the replay: players by id first (their cups,
    statistics and season rows), then ledger rows, then finalized seasons' standings."""
    players = Player.objects.order_by("pk").in_bulk()
    stats = PlayerStats.objects.in_bulk()
    seasons = _stored_seasons()
    differences = []
    for player in players.values():
        label = _player_label(player)
        totals = replay.players.get(player.pk, PlayerTotals())
        row = stats.get(player.pk) or PlayerStats(player=player)
        recomputed = {name: getattr(totals, name) for name in CUP_FIELDS}
        recomputed |= stats_values(totals.stats)
        stored = {name: getattr(player if name in CUP_FIELDS else row, name) for name in recomputed}
        differences += _compared(label, stored, recomputed)
        numbers = {s for p, s in seasons if p == player.pk} | {
            s for p, s in replay.seasons if p == player.pk
        }
        for number in sorted(numbers):
            stored_row = seasons.get((player.pk, number))
            replayed_row = replay.seasons.get((player.pk, number))
            differences += _compared(
                f"{label}, season {number}",
                stored_row,
                None if replayed_row is None else replayed_row.values(),
                SEASON_NAMED_BY,
            )
    ledger = _stored_ledger()
    for key in sorted(ledger.keys() | replay.ledger.keys(), key=_ledger_order):
        subject = f"{_ledger_label(key)}, {_player_label(players[key[2]])}"
        differences += _compared(subject, ledger.get(key), replay.ledger.get(key), LEDGER_NAMED_BY)
    for season in sorted(replay.boards):
        differences += _standings_differences(season, replay.boards[season], players, history)
    return differences + board_check(players.values(), replay)


def on_current_board(replay: Replay, player: Player, season: int) -> bool:
    """Whether the replay puts ``player`` on the board of the current ``season``: a human with
    no ban and a ranked match of the season that counts (KORT_RULES §10, §11)."""
    row = replay.seasons.get((player.pk, season))
    return may_be_on_a_board(player) and row is not None and counts_for_the_board(row.ranked_played)


def _board_season(replay: Replay, player: Player, season: int) -> int | None:
    """The ``board_season`` the replay gives ``player``: the current season while they are on
    its board; otherwise what is stored, unless it claims the current board."""
    if on_current_board(replay, player, season):
        return season
    return None if player.board_season == season else player.board_season


def board_check(players: Iterable[Player], replay: Replay) -> list[Difference]:
    """Who is on the current season's board (``board_season``) and every count of it
    (``ranking.board.board_differences``) that differs from what the replay gives."""
    season = current_season_number()
    counted: Counter[int] = Counter()
    differences = []
    for player in players:
        recomputed = _board_season(replay, player, season)
        if recomputed != player.board_season and may_be_on_a_board(player):
            differences.append(
                Difference(_player_label(player), "board_season", player.board_season, recomputed)
            )
        if on_current_board(replay, player, season):
            counted[replay.players[player.pk].cups] += 1
    return differences + [
        Difference(
            f"board of season {season}" + ("" if cups is None else f", {cups} cups"),
            "players" if cups is not None else "total",
            stored,
            recomputed,
        )
        for cups, stored, recomputed in board_differences(season, counted)
    ]


def _compared(
    subject: str, stored: dict | None, recomputed: dict | None, named_by: tuple = ()
) -> list[Difference]:
    """The fields of a row that differ; a row on one side only is shown by ``named_by``."""
    if stored is None or recomputed is None:
        return [
            Difference(subject, name, stored and stored[name], recomputed and recomputed[name])
            for name in named_by
        ]
    return [
        Difference(subject, name, stored[name], value)
        for name, value in recomputed.items()
        if stored[name] != value
    ]


def _player_label(player: Player) -> str:
    return f"player {player.username} (id {player.pk})"


KIND_ORDER = {CupKind.MATCH: 0, CupKind.VOID: 1, CupKind.SEASON_RESET: 2}


def _ledger_order(key: LedgerKey) -> tuple:
    kind, subject, player_id = key
    return (KIND_ORDER[CupKind(kind)], subject, player_id)


def _ledger_label(key: LedgerKey) -> str:
    kind, subject, _ = key
    if kind == CupKind.MATCH:
        return f"ledger match {subject}"
    if kind == CupKind.VOID:
        return f"ledger void of match {subject}"
    return f"ledger reset opening season {subject}"


def _stored_ledger() -> dict[LedgerKey, dict]:
    rows = CupChange.objects.values_list("kind", "match_id", "player_id", *LEDGER_FIELDS)
    return {
        _ledger_key(kind, match_id, season, player_id): {
            "delta": delta,
            "created_at": created_at,
            "cups_after": cups_after,
            "season": season,
        }
        for kind, match_id, player_id, delta, created_at, cups_after, season in rows
    }


def _ledger_key(kind: str, match_id: int | None, season: int, player_id: int) -> LedgerKey:
    if match_id is None:  # a reset (constraint a_match_unless_a_reset)
        return (CupKind.SEASON_RESET, season, player_id)
    return (CupKind(kind), match_id, player_id)


def _stored_seasons() -> dict[tuple[int, int], dict]:
    names = [*stats_values(StatsLine()), *SEASON_FIELDS]
    rows = SeasonStats.objects.values("player_id", "season", *names)
    return {(row["player_id"], row["season"]): {name: row[name] for name in names} for row in rows}


def _standings_differences(
    season: int, board: dict[int, BoardEntry], players: dict[int, Player], history: History
) -> list[Difference]:
    """The stored standings of ``season`` against the replay's board at its end: the players
    the standings hold and, besides them, those eligible and not banned now (a ban is not part
    of the history), ranked in leaderboard order."""
    stored = {
        row.player_id: {name: getattr(row, name) for name in STANDING_FIELDS}
        for row in SeasonStanding.objects.filter(season_id=season)
    }
    eligible = [
        player_id
        for player_id in board
        if player_id in stored or not history.humans.get(player_id, False)
    ]
    ordered = in_leaderboard_order(
        eligible, lambda pid, name: pid if name == "id" else getattr(board[pid], name)
    )
    recomputed = {
        player_id: {"rank": rank}
        | {name: getattr(board[player_id], name) for name in STANDING_FIELDS[1:]}
        for rank, player_id in enumerate(ordered, start=1)
    }
    return [
        replace(difference, frozen=True)
        for player_id in sorted(stored.keys() | recomputed.keys())
        for difference in _compared(
            f"standings of season {season}, {_player_label(players[player_id])}",
            stored.get(player_id),
            recomputed.get(player_id),
            STANDING_NAMED_BY,
        )
    ]


# --- fix ------------------------------------------------------------------------------------


def ladder_fix(replay: Replay) -> None:
    """Write the replay over what is stored (``ranking.ladder.ladder_repair``): every player's
    cups fields and statistics row, their season rows, and the ledger (rows added, changed or
    removed). The standings of finalized seasons are frozen and not written; the current
    season's board is counted again from the players. Call inside a transaction."""
    players = list(Player.objects.order_by("pk"))
    season = current_season_number()
    for player in players:
        totals = replay.players.get(player.pk, PlayerTotals())
        for name in CUP_FIELDS:
            setattr(player, name, getattr(totals, name))
        player.board_season = _board_season(replay, player, season)
    ladder_repair(
        LadderRepair(
            players=players,
            fields=CUP_FIELDS,
            stats={
                player.pk: stats_values(replay.players.get(player.pk, PlayerTotals()).stats)
                for player in players
            },
            seasons={key: totals.values() for key, totals in replay.seasons.items()},
            stale_seasons=_stored_seasons().keys() - replay.seasons.keys(),
            ledger=replay.ledger,
            stale_ledger=_stored_ledger().keys() - replay.ledger.keys(),
            season=season,
        )
    )


def ladder_rebuild(
    *, fix: bool, track: Callable[[Iterable[Match], int], Iterable[Match]] | None = None
) -> list[Difference]:
    """Replay the history and return every difference from what is stored; with ``fix``,
    also write the replay in the same transaction (standings excepted, see
    :func:`ladder_fix`).

    ``track(matches, total)`` may wrap the matches, e.g. in a progress bar. With ``fix`` every
    player and statistics row is locked first (players in id order, as finalization locks
    them), so a finalization that runs meanwhile waits and then applies on top of the fix.

    Raises:
        Conflict: a season's end is running; its resets are half written.
    """
    with transaction.atomic():
        if Season.objects.filter(status=SeasonStatus.FINALIZING).exists():
            raise Conflict("season", "a season's end is running; rebuild once it is finalized")
        if fix:
            list(Player.objects.select_for_update(no_key=True).order_by("pk").values_list("pk"))
            list(PlayerStats.objects.select_for_update().order_by("pk").values_list("pk"))
        stored = finalized_matches()
        matches: Iterable[Match] = stored
        if track is not None:
            matches = track(stored.iterator(chunk_size=500), stored.count())
        history = stored_history()
        replay = ladder_replay(matches, history)
        differences = ladder_differences(replay, history)
        if fix and differences:
            ladder_fix(replay)
    return differences

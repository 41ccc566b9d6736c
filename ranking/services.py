"""Writes of the ladder: match finalization (KORT_RULES §7, §8, §10), voiding (§11) and bans
(API.md "Conventions": banned players are on no leaderboard).

Finalization applies a match's cups exactly once: it claims the match with a conditional
``UPDATE ... WHERE status = 'completed'`` and proceeds only if that changed one row, and the
ledger's unique (match, player) row backs the same guarantee in the database. Voiding takes
them back exactly once the same way, from ``finalized`` to ``void``. Finalization, voids and
bans move the players on the current season's board in the transaction that writes their rows
(``ranking.board.board_move``).

Lock order: the match row, then (voiding) the current season's row, shared, then the players'
rows in id order.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction
from django.db.models import Exists, OuterRef, Prefetch
from django.utils import timezone

from domain.errors import Conflict, NotFound, RuleError
from matches.kort.rules import StatsLine
from matches.models import Match, MatchStatus, Seat
from players.models import Player
from ranking.board import board_move, current_season_number, is_on_board
from ranking.effects import PlayerEffect, completed_facts, facts_of, match_effect
from ranking.ledger import cups_move, players_locked
from ranking.models import CupChange, CupKind
from seasons.models import Season, SeasonStatus
from seasons.selectors import current_season_shared
from stats.models import SeasonStats
from stats.services import season_stats_open, stats_add


class SeasonNotOpen(Exception):
    """The match belongs to a season that has not opened yet: the end of the season before it
    has not run (KORT_RULES §10). Finalize it once that season end is done."""

    def __init__(self, season: int) -> None:
        super().__init__(f"season {season} has not opened yet")
        self.season = season


def match_finalize(match_id: int) -> bool:
    """Apply a completed match's cups (ranked only, humans only) and statistics (humans only;
    all time and its season's), then mark it finalized. Returns True if this call finalized
    it, False if it was not completed or already finalized (a second or concurrent run
    changes nothing).

    Raises:
        SeasonNotOpen: the match was completed after its season's end and the next season
            has not opened yet; nothing is written.
    """
    with transaction.atomic():
        # Claimed only while completed, and only once its season has opened.
        completed = Match.objects.filter(pk=match_id, status=MatchStatus.COMPLETED)
        season_open = Exists(Season.objects.filter(number=OuterRef("season")))
        if not completed.filter(season_open).update(status=MatchStatus.FINALIZED):
            waiting = completed.values_list("season", flat=True).first()
            if waiting is not None:
                raise SeasonNotOpen(waiting)
            return False
        facts = completed_facts(match_id)
        if facts is None:
            raise ValueError(f"match {match_id} is completed without a winner")
        season = facts.season
        effects = match_effect(facts)
        # The time is taken once the players' rows are locked, so matches sharing a player are
        # stamped in the order their cups were applied (the order rebuild_ladder replays).
        players = players_locked(effects)
        now = timezone.now()
        deltas = {pid: effect.cups for pid, effect in effects.items() if effect.cups is not None}
        if deltas:
            board = _board_before(players)
            # Opens the players' statistics rows of the season, from their totals before.
            cups_move(players, deltas, kind=CupKind.MATCH, season=season, at=now, match_id=match_id)
            # A finalized ranked match puts its human players on its season's board (§10).
            _board_follow(board, players, on_board={player.pk for player in players})
        else:
            season_stats_open(season, {player.pk: player.cups for player in players})
        stats_add(_by_stats_line(effects), season=season, ranked=facts.ranked)
        Match.objects.filter(pk=match_id).update(finalized_at=now)
    return True


SEATS_WITH_PLAYERS = Prefetch("seats", queryset=Seat.objects.select_related("player"))
"""A match's seats with their players, read along in one query (``facts_of``)."""


class _BoardBefore:
    """Where players stood on the current season's board before a cup change."""

    def __init__(self, season: int, cups: dict[int, int | None]) -> None:
        self.season = season
        self.cups = cups


def _board_before(players: list[Player]) -> _BoardBefore:
    season = current_season_number()
    return _BoardBefore(season, {p.pk: p.cups if is_on_board(p, season) else None for p in players})


def _board_follow(before: _BoardBefore, players: list[Player], on_board: set[int]) -> None:
    """Move ``players`` (their cups changed since ``before``) on the current season's board:
    those in ``on_board`` stand there now with their new totals (a ban keeps a player off
    it), the others are off it."""
    season = before.season
    joined = [p.pk for p in players if p.pk in on_board and p.board_season != season]
    left = [p.pk for p in players if p.pk not in on_board and p.board_season == season]
    if joined:
        Player.objects.filter(pk__in=joined).update(board_season=season)
    if left:
        Player.objects.filter(pk__in=left).update(board_season=None)
    moves = []
    for player in players:
        player.board_season = season if player.pk in on_board else player.board_season
        if player.pk in left:
            player.board_season = None
        after = player.cups if is_on_board(player, season) else None
        moves.append((before.cups[player.pk], after))
    board_move(season, moves)


def _by_stats_line(effects: Mapping[int, PlayerEffect]) -> list[tuple[StatsLine, list[int]]]:
    """The players of each statistics line (a team's, KORT_RULES §8): the statistics of a
    match are added a team at a time, in a fixed number of statements whatever the players."""
    teams: list[tuple[StatsLine, list[int]]] = []
    for player_id, effect in effects.items():
        same = next((ids for line, ids in teams if line == effect.stats), None)
        if same is None:
            teams.append((effect.stats, [player_id]))
        else:
            same.append(player_id)
    return teams


def match_void(match_id: int, reason: str) -> Match:
    """Void a finalized match (KORT_RULES §11), exactly once: each human player gets a ledger
    row of kind ``void`` whose delta is minus what the match gave them, stamped now, in the
    current season (also for a match of a season already finalized, whose frozen standings
    stay as they are); the match leaves their statistics, all time and its season's (its
    ranked matches too, so it no longer puts them on that season's leaderboard); it is marked
    ``void`` with ``reason``. Best cups stay: they are the highest total ever reached (§10).

    Raises:
        RuleError: a blank ``reason`` (field ``reason``).
        NotFound: there is no such match.
        Conflict: the match is not finalized, or already void; or the current season's end is
            running (void it once the next season has opened). Nothing is written.
    """
    reason = reason.strip()
    if not reason:
        raise RuleError("reason", "a void needs a reason (KORT_RULES §11)")
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise NotFound(f"match {match_id} does not exist")
        if match.status == MatchStatus.VOID:
            raise Conflict("match", f"match {match_id} is already void")
        if match.status != MatchStatus.FINALIZED:
            raise Conflict(
                "match", f"match {match_id} is {match.status}; only a finalized match is voided"
            )
        season = current_season_shared()
        if season.status != SeasonStatus.CURRENT:
            raise Conflict(
                "season",
                f"the end of season {season.number} is running; void the match once season "
                f"{season.number + 1} has opened",
            )
        match = Match.objects.prefetch_related("rounds", SEATS_WITH_PLAYERS).get(pk=match_id)
        facts = facts_of(match)
        effects = match_effect(facts)
        given = CupChange.objects.filter(match=match, kind=CupKind.MATCH)
        deltas = {player_id: -delta for player_id, delta in given.values_list("player", "delta")}
        players = players_locked(effects)
        now = timezone.now()
        moved = [player for player in players if player.pk in deltas]
        board = _board_before(moved)
        if deltas:
            cups_move(
                moved, deltas, kind=CupKind.VOID, season=season.number, at=now, match_id=match.pk
            )
        taken_back = [(-line, player_ids) for line, player_ids in _by_stats_line(effects)]
        stats_add(taken_back, season=facts.season, ranked=facts.ranked)
        if moved:
            # A player stays on the current board while a ranked match of the season still
            # counts for them (§10, §11).
            still = SeasonStats.objects.filter(
                season=board.season, player__in=moved, ranked_played__gt=0
            ).values_list("player_id", flat=True)
            _board_follow(board, moved, on_board=set(still))
        Match.objects.filter(pk=match_id).update(
            status=MatchStatus.VOID, void_reason=reason, voided_at=now, void_season=season.number
        )
    match.refresh_from_db()
    return match


def player_ban(player: Player, banned: bool) -> bool:
    """Ban (``banned``) or unban the player: a banned player leaves the current season's board
    and cannot be seated in new matches; unbanned, they are back on it if it is the season of
    their last ranked match (API.md "Conventions", KORT_RULES §10). Returns True if it changed
    the player, False if they already were so; ``player.is_banned`` follows."""
    with transaction.atomic():
        locked = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
        player.is_banned = banned
        if locked.is_banned == banned:
            return False
        season = current_season_number()
        was_on = is_on_board(locked, season)
        Player.objects.filter(pk=locked.pk).update(is_banned=banned)
        locked.is_banned = banned
        is_on = is_on_board(locked, season)
        board_move(season, [(locked.cups if was_on else None, locked.cups if is_on else None)])
    return True

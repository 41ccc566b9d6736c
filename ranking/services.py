"""Writes of the ladder: match finalization (KORT_RULES §7, §8, §10), voiding (§11), bans
(API.md "Conventions": banned players are on no leaderboard) and bans with a refund (§11).

Each computes its change of the ladder as a value (``ranking.ladder.LadderChange``) and hands
it to ``ranking.ladder.ladder_apply``, which writes the ledger, the totals, the statistics and
the board together. Finalization applies a match's cups exactly once: it claims the match with
a conditional ``UPDATE ... WHERE status = 'completed'`` and proceeds only if that changed one
row, and the ledger's unique (match, player) row backs the same guarantee in the database.
Voiding takes them back exactly once the same way, from ``finalized`` to ``void``.

Lock order (``ranking.ladder``): the match rows in id order, then (voiding) the current
season's row, shared, then the players' rows in id order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connections, router, transaction
from django.db.models import Prefetch
from django.utils import timezone

from bulk.updates import Insert, Update, Upsert
from domain.errors import Conflict, NotFound, RuleError
from matches.kort.rules import Mode
from matches.models import Match, MatchStatus, Seat
from players.models import Player
from ranking.board import current_season_number
from ranking.effects import MatchFacts, PlayerEffect, completed_facts, facts_of, match_effect
from ranking.fold import Banned, Finalized, Voided
from ranking.ladder import LadderChange, ladder_apply, players_locked
from ranking.models import FINALIZED_SLOTS, CupChange, CupKind, FinalizedCount
from seasons.models import Season, SeasonStatus
from seasons.selectors import current_season, current_season_shared
from stats.models import counts_for_the_board
from stats.selectors import season_figures
from stats.services import MatchTable


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
        if not _claimed(match_id):
            completed = Match.objects.filter(pk=match_id, status=MatchStatus.COMPLETED)
            waiting = completed.values_list("season", flat=True).first()
            if waiting is not None:
                raise SeasonNotOpen(waiting)
            return False
        facts = completed_facts(match_id)
        if facts is None:
            raise ValueError(f"match {match_id} is completed without a winner")
        # The time is taken once the players' rows are locked, so matches sharing a player are
        # stamped in the order their cups were applied (the order rebuild_ladder replays).
        players = players_locked(facts.human_teams)
        now = timezone.now()
        season = current_season()
        change = finalized_change(match_id, facts, match_effect(facts), now, season.number)
        slot = match_id % FINALIZED_SLOTS
        ladder_apply(
            change,
            players,
            season,
            then=[
                Update(Match, ("id",), {"finalized_at": "="}, [(match_id, now)]),
                Insert(FinalizedCount, [{"slot": slot, "matches": 1}], ONE_MORE),
            ],
        )
    return True


ONE_MORE = Upsert(("slot",), ("matches",), adding=True)
"""A finalization's 1 added to its slot of the finalized matches' count (created if missing)."""


def _claimed(match_id: int) -> bool:
    """Mark the match ``match_id`` finalized if it is completed and its season has opened;
    whether it did. One plain statement (finalization's hot path, which the ORM would compile
    again on every call)."""
    match, season = Match._meta.db_table, Season._meta.db_table
    with connections[router.db_for_write(Match)].cursor() as cursor:
        cursor.execute(
            f'UPDATE "{match}" SET "status" = %s WHERE "id" = %s AND "status" = %s AND EXISTS '
            f'(SELECT 1 FROM "{season}" s WHERE s."number" = "{match}"."season")',
            [MatchStatus.FINALIZED.value, match_id, MatchStatus.COMPLETED.value],
        )
        return cursor.rowcount == 1


def finalized_change(
    match_id: int,
    facts: MatchFacts,
    effects: Mapping[int, PlayerEffect],
    at: datetime,
    current: int,
) -> LadderChange:
    """What finalizing a match at ``at`` does to the ladder (§7, §8, §10): each human
    player's cups (a ranked match) in its season and their statistics line, and a ranked
    match puts them on the board of ``current``, the current season."""
    mode = str(Mode.RANKED if facts.ranked else Mode.ROOM)
    cups = {pid: effect.cups for pid, effect in effects.items() if effect.cups is not None}
    return LadderChange(
        events={
            pid: Finalized(match_id, facts.season, mode, effect.stats, effect.cups, at, current)
            for pid, effect in effects.items()
        },
        table=match_table(match_id, facts, cups),
    )


def match_table(match_id: int, facts: MatchFacts, cups: Mapping[int, int]) -> MatchTable:
    """The match as KORT_RULES §12 counts it: every seated player's team (bots too), the
    human players whose figures it moves, and their cups (ranked)."""
    assert facts.completed_at is not None  # a match over has its completion time
    return MatchTable(
        match_id=match_id,
        completed_at=facts.completed_at,
        season=facts.season,
        mode=Mode.RANKED if facts.ranked else Mode.ROOM,
        winner=facts.winner,
        teams=facts.teams,
        humans=sorted(facts.human_teams),
        cups=cups,
    )


SEATS_WITH_PLAYERS = Prefetch("seats", queryset=Seat.objects.select_related("player"))
"""A match's seats with their players, read along in one query (``facts_of``)."""


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
    reason = _void_reason(reason)
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
        season = _season_open_for_voids()
        _voids_apply([match_id], season, reason)
    match.refresh_from_db()
    return match


def _void_reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise RuleError("reason", "a void needs a reason (KORT_RULES §11)")
    return reason


def _season_open_for_voids() -> Season:
    """The current season, its row held shared; voids wait while its end runs.

    Raises:
        Conflict: the current season's end is running.
    """
    season = current_season_shared()
    if season.status != SeasonStatus.CURRENT:
        raise Conflict(
            "season",
            f"the end of season {season.number} is running; void the match once season "
            f"{season.number + 1} has opened",
        )
    return season


def _voids_apply(
    match_ids: Sequence[int], season: Season, reason: str, also: Sequence[int] = ()
) -> dict[int, Player]:
    """Void the matches ``match_ids`` (rows locked, finalized) one after the other, in
    ``season`` (the current one, its row held): each a :func:`voided_change` applied to
    their players, locked together in id order with the players ``also``. Returns the locked
    players by id."""
    matches = Match.objects.prefetch_related("rounds", SEATS_WITH_PLAYERS).order_by("pk")
    voided = {match.pk: facts_of(match) for match in matches.filter(pk__in=match_ids)}
    players = players_locked({*also, *(pid for f in voided.values() for pid in f.human_teams)})
    by_id = {player.pk: player for player in players}
    now = timezone.now()
    marked = {"status": "=", "void_reason": "=", "voided_at": "=", "void_season": "="}
    values = (MatchStatus.VOID.value, reason, now, season.number)
    # Each match is marked void with its own change: until then its players' streak runs
    # still count it, as the seats they read a run's matches from do (KORT_RULES §12).
    for match_id, facts in voided.items():
        change = voided_change(match_id, facts, season.number, now)
        players = [by_id[pid] for pid in change.player_ids]
        ladder_apply(
            change, players, season, then=[Update(Match, ("id",), marked, [(match_id, *values)])]
        )
    return by_id


def voided_change(match_id: int, facts: MatchFacts, season: int, at: datetime) -> LadderChange:
    """What voiding the match ``match_id`` (its ``facts``) at ``at`` does to the ladder
    (§11): minus the cups it gave each player, in the current ``season``; its statistics
    lines taken back out of the season it was completed in; and a player leaves the current
    board when no ranked match of the season counts for them any more (§10)."""
    given = CupChange.objects.filter(match_id=match_id, kind=CupKind.MATCH)
    gave = dict(given.values_list("player", "delta"))
    rows = season_figures(season, list(gave))
    this_season = int(facts.ranked and facts.season == season)
    counting = {pid: row.ranked_played - this_season for pid, row in rows.items()}
    mode = str(Mode.RANKED if facts.ranked else Mode.ROOM)
    return LadderChange(
        events={
            pid: Voided(
                match_id,
                facts.season,
                mode,
                effect.stats,
                gave.get(pid),
                at,
                season,
                counts_for_the_board(counting.get(pid, 0)),
            )
            for pid, effect in match_effect(facts).items()
        },
        table=-match_table(match_id, facts, gave),
    )


def player_ban(player: Player, banned: bool) -> bool:
    """Ban (``banned``) or unban the player: a banned player leaves the current season's board
    and cannot be seated in new matches; unbanned, they are back on it if it is the season of
    their last ranked match (API.md "Conventions", KORT_RULES §10). Returns True if it changed
    the player, False if they already were so; ``player.is_banned`` follows."""
    with transaction.atomic():
        locked = players_locked([player.pk])
        player.is_banned = banned
        if locked[0].is_banned == banned:
            return False
        season = current_season()
        ladder_apply(_ban_change(player.pk, banned, season.number), locked, season)
    return True


def _ban_change(player_id: int, banned: bool, current: int) -> LadderChange:
    return LadderChange(events={player_id: Banned(banned, current)})


@dataclass(frozen=True)
class BanRefund:
    """What :func:`player_ban_refund` did: the matches it voided, in id order, and whether it
    banned the player (False: they were banned already)."""

    voided: list[int]
    banned: bool

    @property
    def changed(self) -> bool:
        return bool(self.voided) or self.banned


def player_ban_refund(player_id: int, reason: str) -> BanRefund:
    """Ban the player with a refund (KORT_RULES §11), in one step: every finalized, not void,
    ranked match of theirs completed in the current season is voided (:func:`match_void`'s
    change, with ``reason``), then they are banned. A second run finds nothing left to void
    and the player banned, and changes nothing. A match of theirs completed but not finalized
    yet is not voided (it has given nothing yet); run it again once it is finalized.

    Raises:
        RuleError: a blank ``reason`` (field ``reason``).
        NotFound: there is no such player.
        Conflict: the current season's end is running. Nothing is written.
    """
    reason = _void_reason(reason)
    with transaction.atomic():
        if not Player.objects.filter(pk=player_id).exists():
            raise NotFound(f"player {player_id} does not exist")
        current = current_season_number()
        owned = Match.objects.select_for_update(of=("self",)).filter(
            seats__player_id=player_id,
            status=MatchStatus.FINALIZED,
            mode=Mode.RANKED,
            season=current,
        )
        match_ids = list(owned.order_by("pk").values_list("pk", flat=True))
        season = _season_open_for_voids()
        if season.number != current:
            raise Conflict("season", f"season {current} ended meanwhile; ban the player again")
        player = _voids_apply(match_ids, season, reason, also=[player_id])[player_id]
        banned = not player.is_banned
        if banned:
            ladder_apply(_ban_change(player_id, True, season.number), [player], season)
    return BanRefund(voided=match_ids, banned=banned)

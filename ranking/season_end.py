"""The ladder's season end (KORT_RULES §10), done once for each season:

1. the claim: the season goes from ``current`` to ``finalizing`` by a conditional update, so
   of two runs (two beat ticks, two ``season_end`` commands) only one claims it; its end moves
   to that moment;
2. every completed match of the season is finalized (the run does it itself, idempotently,
   for those whose task has not run yet), in batches of :data:`BATCH` matches;
3. the final standings are frozen in one statement (``INSERT ... SELECT`` ranking the board
   with ``ROW_NUMBER()`` in its order): each player's final rank, cups, best cups and ranked
   matches of the season;
4. the switch, one short transaction: the season finalized, its board's counts dropped
   (``ranking.ladder.ladder_close``) and the next season opened with its soft reset pending
   (``Season.reset_floor``);
5. the reset written to the players' rows, :data:`RESET_BATCH` players by id at a time
   (``ranking.ladder.ladder_reset``: a ``season_reset`` ledger row of the next season and the
   new total for each human player whose total it changes), then marked written.

Each step commits with its progress (:class:`~ranking.models.SeasonEnd`), so a run stopped
anywhere resumes at the step it stopped in, and a step is written whole or not at all;
progress goes to the log (``ranking.season_end``). One run drives an end at a time: it holds a
lease renewed with every step, and a run that finds the lease held by another leaves the work
to it (or, asked to wait, waits and takes over if that run stops).

**Reads stay exact.** Until the switch commits, nothing moves the ending season's board (its
matches are finalized before the standings are frozen; nothing else changes cups meanwhile),
so the leaderboard, a player and their surroundings read the board as the season ended. The
switch opens the next season, whose board is empty, at once, and from then on every total is
read as the reset makes it: a player whose row the reset has not reached yet is read with the
reset's result (``stats.totals.players_now``), and a read of their ledger writes their reset
first (``ranking.ladder.ladder_reset_player``), so it shows the stored row. A read runs in one
snapshot (``ranking.selectors.one_snapshot``): it sees the whole switch or none of it.

**Matches completed while the end runs.** §10: a match belongs to the season in which it was
completed. Completing a match holds the season's row shared, so the claim waits for matches
completing at that moment and they are the ending season's (step 2 finalizes them); a match
completed after the claim was completed after the ending season's end, in the next season,
whose first change is the reset that opens it. Its cups therefore apply to the reset total,
once that season is open: the end finalizes those matches itself right after the switch
commits, and their tasks, retried (``SeasonNotOpen``), find them finalized. A match's
finalization writes its players' pending reset first (``ranking.ladder.ladder_apply``), so
it need not wait for step 5: the wait is steps 2 to 4 (the standings, a few seconds at a
million players, docs/scaling.md "The season end"), not the reset's million rows. A void
waits for the switch too.
"""

from __future__ import annotations

import logging
import time
import uuid
from datetime import timedelta

from django.conf import settings
from django.db import connections, router, transaction
from django.db.models import Q
from django.utils import timezone

from matches.models import Match, MatchStatus
from players.models import BOARD_ELIGIBLE, LEADERBOARD_ORDER, Player
from ranking.ladder import ladder_close, ladder_reset
from ranking.models import SeasonEnd, SeasonEndStep, SeasonStanding
from ranking.services import match_finalize
from seasons.models import Season, SeasonStatus
from seasons.selectors import current_season, season_get, seasons_due
from seasons.services import season_next_open, season_reset_written
from stats.models import SeasonStats
from stats.totals import pending_reset

logger = logging.getLogger(__name__)

BATCH = 5000
"""Pending matches of the ending season finalized per step (each in its own transaction)."""
RESET_BATCH = 20_000
"""Players (by id) whose rows one step of the reset reads and writes: a finalization of one
of them waits for that step's transaction (about a second) at most."""
LEASE = timedelta(minutes=2)
"""How long a run's hold on a season end lasts without a batch: past it, another run may take
over (the one that held it stopped)."""
SORT_MEMORY = "256MB"
"""PostgreSQL's ``work_mem`` for the statement that ranks the board (a million rows sort in
about 100 MB), set for that transaction only."""
WAIT_SECONDS = 1.0
"""How often a run that waits for another run's season end looks again."""


class LeaseLost(Exception):
    """Another run took the season end over; this run's batch is rolled back."""


def season_claim(number: int, *, end_now: bool) -> bool:
    """Start the end of season ``number``: ``current`` -> ``finalizing``, exactly once.

    Without ``end_now`` only a season whose end has come is claimed; with it, the season ends
    now (its end moves to now if it was later). Returns True if this call claimed it, False if
    the season is not current (already claimed, or finalized) or not due. The time is taken
    once the season's row is locked, after every match completing at that moment.
    """
    with transaction.atomic():
        season = Season.objects.select_for_update().filter(number=number).first()
        now = timezone.now()
        if season is None or season.status != SeasonStatus.CURRENT:
            return False
        if season.ends_at > now and not end_now:
            return False
        ends_at = min(season.ends_at, now)
        claimed = Season.objects.filter(number=number, status=SeasonStatus.CURRENT).update(
            status=SeasonStatus.FINALIZING, ends_at=ends_at
        )
        if not claimed:
            return False
        SeasonEnd.objects.create(
            season_id=number, reset_floor=settings.KORT_SEASON_RESET_FLOOR, started_at=now
        )
    logger.info(
        "season %s: end claimed (ended %s; reset floor %s)",
        number,
        ends_at.isoformat(),
        settings.KORT_SEASON_RESET_FLOOR,
    )
    return True


def season_end_run(number: int) -> bool:
    """Drive the end of season ``number`` to its finish, batch by batch. Returns True once the
    season is finalized, False if another run holds its end (the work is left to it).

    Raises:
        ValueError: the season's end has not been claimed (:func:`season_claim`).
    """
    if not SeasonEnd.objects.filter(season_id=number).exists():
        raise ValueError(f"the end of season {number} has not been claimed")
    runner = uuid.uuid4().hex
    steps = {
        SeasonEndStep.MATCHES: _matches_finalize,
        SeasonEndStep.STANDINGS: _standings_freeze,
        SeasonEndStep.OPEN: _open,
        SeasonEndStep.RESET: _reset_write,
    }
    while True:
        step = _lease_take(number, runner)
        if step is None:
            return Season.objects.get(number=number).status == SeasonStatus.FINALIZED
        try:
            steps[SeasonEndStep(step)](number, runner)
        except LeaseLost:
            logger.info("season %s: another run took the end over", number)
            return False


def season_end_wait(number: int) -> None:
    """Drive the end of season ``number`` (claimed), or wait while another run drives it, and
    take it over if that run stops; returns once the season is finalized."""
    while not season_end_run(number):
        time.sleep(WAIT_SECONDS)


def season_end(number: int | None = None) -> bool:
    """End season ``number`` (default: the current season) now, by the same path as the
    scheduled end, and return once it is finalized: True if this call ended it, False if it
    was already finalizing or finalized (then this call waits for that and ends no other).

    Raises:
        NotFound: there is no season ``number``.
    """
    season = current_season() if number is None else season_get(number)
    claimed = season_claim(season.number, end_now=True)
    season_end_wait(season.number)
    return claimed


def end_due_seasons(*, wait: bool = False) -> list[int]:
    """End every season whose end has come (KORT_RULES §10), oldest first, and resume a
    stopped end: what Celery beat runs every ``KORT_SEASON_CHECK_SECONDS``. A season opened
    already past its end (the service was down a whole month) is ended in turn. Returns the
    numbers of the seasons it saw finalized, by itself or by a run it waited for. Without
    ``wait``, it stops at a season end that another run is driving; with it, it waits for it.
    """
    finalized: list[int] = []
    while due := seasons_due():
        season = due[0]
        season_claim(season.number, end_now=False)
        if wait:
            season_end_wait(season.number)
        elif not season_end_run(season.number):
            break
        finalized.append(season.number)
    return finalized


# --- the steps; each call writes one batch (or moves to the next step) ---------------------


def _lease_take(number: int, runner: str) -> str | None:
    """Take or renew the lease on the season's end; its current step, or None when the end is
    done or another run holds a lease that has not run out."""
    now = timezone.now()
    free = Q(runner=runner) | Q(lease_until__isnull=True) | Q(lease_until__lt=now)
    held = (
        SeasonEnd.objects.filter(free, season_id=number)
        .exclude(step=SeasonEndStep.DONE)
        .update(runner=runner, lease_until=now + LEASE)
    )
    if not held:
        return None
    return SeasonEnd.objects.values_list("step", flat=True).get(season_id=number)


def _progress_locked(number: int, runner: str) -> SeasonEnd:
    """The season end's progress row, locked for the batch; raises LeaseLost if another run
    holds it now."""
    end = SeasonEnd.objects.select_for_update().get(season_id=number)
    if end.runner != runner:
        raise LeaseLost
    return end


def _advance(end: SeasonEnd, **changes) -> None:
    """Save the batch's progress with the batch and renew the lease."""
    end.batches += 1
    end.lease_until = timezone.now() + LEASE
    for name, value in changes.items():
        setattr(end, name, value)
    end.save()


def _matches_finalize(number: int, runner: str) -> None:
    """Step 2: finalize the season's completed matches still waiting for their task, a batch
    at a time (each match in its own transaction); then move on to the standings."""
    pending = Match.objects.filter(season=number, status=MatchStatus.COMPLETED).order_by("pk")
    batch = list(pending.values_list("pk", flat=True)[:BATCH])
    finalized = sum(match_finalize(match_id) for match_id in batch)
    with transaction.atomic():
        end = _progress_locked(number, runner)
        if batch:
            _advance(end)
            logger.info("season %s: %s pending match(es) finalized", number, finalized)
        else:
            _advance(end, step=SeasonEndStep.STANDINGS, cursor=None)


def _standings_freeze(number: int, runner: str) -> None:
    """Step 3: freeze the season's final standings (§10) in one statement: the board, still
    the current one, ranked in its order by a window function, each row with the player's
    cups, best cups and ranked matches of the season (:func:`standings_freeze`)."""
    with transaction.atomic():
        end = _progress_locked(number, runner)
        frozen = standings_freeze(number)
        _advance(end, standings=frozen, step=SeasonEndStep.OPEN, cursor=None)
    logger.info("season %s: standings frozen through rank %s", number, frozen)


def standings_freeze(number: int) -> int:
    """Write the final standings of season ``number`` as its board gives them now (the
    players of ``ranking.board.board_players``, filtered in the join that reads their
    statistics) with one ``INSERT ... SELECT``, in the caller's transaction: per player on it,
    ``(season, player, rank, cups, best_cups, matches_played, matches_won)``, the rank
    numbered in ``LEADERBOARD_ORDER`` by ``ROW_NUMBER()`` (no two players share one, as on the
    board). Returns how many rows it wrote."""
    connection = connections[router.db_for_write(SeasonStanding)]
    quote = connection.ops.quote_name
    player = {field.name: quote(str(field.column)) for field in Player._meta.concrete_fields}
    order = ", ".join(
        f"p.{player[name.removeprefix('-')]} {'DESC' if name.startswith('-') else 'ASC'}"
        for name in LEADERBOARD_ORDER
    )
    on_board = "".join(f" AND p.{player[name]} = %s" for name in BOARD_ELIGIBLE)
    column = {field.name: str(field.column) for field in SeasonStanding._meta.concrete_fields}
    fields = ("season", "player", "rank", "cups", "best_cups", "matches_played", "matches_won")
    columns = ", ".join(quote(column[name]) for name in fields)
    select = (
        f"SELECT %s, s.player_id, ROW_NUMBER() OVER (ORDER BY {order}), p.{player['cups']}, "
        f"s.best_cups, s.ranked_played, s.ranked_won FROM {quote(SeasonStats._meta.db_table)} s "
        f"JOIN {quote(Player._meta.db_table)} p ON p.{player['id']} = s.player_id "
        f"WHERE s.season = %s AND p.{player['board_season']} = %s{on_board}"
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # the board sorted in memory, not on disk
            cursor.execute(f"SET LOCAL work_mem = '{SORT_MEMORY}'")
        cursor.execute(
            f"INSERT INTO {quote(SeasonStanding._meta.db_table)} ({columns}) {select}",
            [number, number, number, *BOARD_ELIGIBLE.values()],
        )
        return cursor.rowcount


def _open(number: int, runner: str) -> None:
    """Step 4, the switch, one short transaction: this season finalized, its board's counts
    dropped, the next season opened with its soft reset pending (§10; written by step 5).
    Until it commits every read sees the season's board as it ended; from then on, the new
    season with every total as the reset makes it: never a mix. Then the matches of the next
    season completed while the end ran are finalized at once."""
    with transaction.atomic():
        end = _progress_locked(number, runner)
        season = Season.objects.select_for_update().get(number=number)
        opened = season_next_open(season, timezone.now(), end.reset_floor)
        ladder_close(number)
        _advance(end, step=SeasonEndStep.RESET, cursor=0)
    logger.info(
        "season %s finalized (%s standing(s)); season %s open until %s, its reset pending",
        number,
        end.standings,
        opened.number,
        opened.ends_at.isoformat(),
    )
    waiting = Match.objects.filter(season=opened.number, status=MatchStatus.COMPLETED)
    finalized = sum(
        match_finalize(pk) for pk in waiting.order_by("pk").values_list("pk", flat=True)
    )
    if finalized:
        logger.info(
            "season %s: %s match(es) completed meanwhile finalized", opened.number, finalized
        )


def _reset_write(number: int, runner: str) -> None:
    """Step 5: the next season's soft reset written to the next :data:`RESET_BATCH` players'
    rows (``ranking.ladder.ladder_reset``), one transaction; once no player is left, the reset
    is marked written and the end done."""
    with transaction.atomic():
        end = _progress_locked(number, runner)
        opened = Season.objects.get(number=number + 1)
        pending = pending_reset(opened)
        last, reset = (
            (None, 0) if pending is None else ladder_reset(pending, end.cursor or 0, RESET_BATCH)
        )
        if last is not None:
            _advance(end, cursor=last)
        else:
            season_reset_written(opened.number)
            now = timezone.now()
            _advance(end, step=SeasonEndStep.DONE, finished_at=now, runner="", lease_until=None)
    if last is not None:
        logger.info(
            "season %s: reset written through player %s (%s reset)", opened.number, last, reset
        )
    else:
        logger.info("season %s: its reset is written to every player", opened.number)

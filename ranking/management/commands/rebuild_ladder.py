"""``manage.py rebuild_ladder [--fix] [--season N] [--chunk N]``: recompute the ladder from its
history (``ranking.rebuild``), print each difference from what is stored and list the stuck
matches (completed longer than ``KORT_SWEEP_GRACE_SECONDS`` ago, not finalized: the sweeper
queues them again, ``manage.py sweep`` now). ``--season N``: only season N's statistics rows,
ledger rows and standings and, for the current season, the totals, board seasons and board.

Output (standard output; scripts may read it, it stays as it is), one line each, in this order:

- ``SUBJECT: FIELD stored X, recomputed Y`` for each difference, as found, player by player in
  id order: totals, statistics, board season (``player NAME (id N)``), season rows (``...,
  season S``), ledger rows (``ledger match M, player ...``, ``ledger void of match M, ...``,
  ``ledger reset opening season S, ...``), standings (``standings of season S, player ...``),
  §12 figures and statistics per mode (``player N, partner O (all time, ranked): matches, won,
  cups ...``, ``player N, streaks (season S, all): ...``, ``player N, statistics (...):
  counts ...``); then the standings' ranks, then the board's counts (``board of season S, C
  cups: players ...``, ``board of season S: total ...``). ``none``: a row missing, or extra.
- ``No difference: the stored ladder is what the rounds give.`` when none was found;
- ``Fixed N difference(s).`` after ``--fix`` wrote them (frozen standings excepted);
- ``match M: completed T, not finalized`` for each stuck match.

A progress bar goes to standard error (on a terminal only). Exit status: 0 when nothing differs
(or ``--fix`` wrote it) and no match is stuck, 1 otherwise, the reason on standard error.
"""

import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from delivery.sweep import overdue_before
from domain.errors import DomainError
from matches.selectors import matches_awaiting_finalization
from ranking.rebuild import CHUNK, ladder_rebuild


class Command(BaseCommand):
    help = "Report how the ladder differs from its history (--fix: write it) and stuck matches."

    def add_arguments(self, parser):
        parser.add_argument("--fix", action="store_true", help="write the recomputed values")
        parser.add_argument("--season", type=int, metavar="N", help="only season N's figures")
        chunk = f"players a chunk holds, rows a read fetches (default {CHUNK})"
        parser.add_argument("--chunk", type=int, default=CHUNK, metavar="N", help=chunk)

    def handle(self, *args, fix, season, chunk, **options):
        if chunk < 1:
            raise CommandError("--chunk must be at least 1")
        try:
            outcome = ladder_rebuild(
                fix=fix,
                season=season,
                chunk=chunk,
                report=lambda difference: self.stdout.write(str(difference)),
                progress=lambda total: tqdm(total=total, file=sys.stderr, disable=None).update,
            )
        except DomainError as error:
            raise CommandError(error.message) from error
        problems = []
        if not outcome.differences:
            self.stdout.write("No difference: the stored ladder is what the rounds give.")
        elif not fix:
            option = "" if season is None else f" --season {season}"
            problems.append(
                f"{outcome.differences} difference(s) found; run with --fix{option} to write "
                "the recomputed values"
            )
        else:
            self.stdout.write(f"Fixed {outcome.differences - outcome.frozen} difference(s).")
            if outcome.frozen:
                problems.append(
                    f"{outcome.frozen} difference(s) in the standings of finalized seasons, "
                    "which are frozen and never rewritten"
                )
        stuck = list(matches_awaiting_finalization(completed_before=overdue_before()))
        for match in stuck:
            self.stdout.write(f"match {match.pk}: completed {match.completed_at}, not finalized")
        if stuck:
            problems.append(
                f"{len(stuck)} match(es) completed more than "
                f"{settings.KORT_SWEEP_GRACE_SECONDS} s ago and not finalized; the sweeper "
                "queues their finalization again (manage.py sweep does it now)"
            )
        if problems:
            raise CommandError("; ".join(problems), returncode=1)

"""``manage.py rebuild_ladder [--fix] [--season N] [--chunk N]``: recompute the ladder from its
history.

Recomputes every player's cups, best cups, last cup change, board season and statistics (all
time and per season), and the cups ledger with its running totals, from the finalized and
voided matches and the season ends, checks the counts of the current season's leaderboard
against the players and the finalized seasons' frozen standings (logic in ``ranking.rebuild``:
a merge join of the stored rows read player by player, in chunks), and prints each difference
from what is stored. It also lists the stuck matches: completed longer than
``KORT_SWEEP_GRACE_SECONDS`` ago and still not finalized, so their cups are missing from the
ladder (the sweeper queues their finalization again; ``manage.py sweep`` does it now).

``--season N`` checks (and fixes) only season N's figures: its statistics rows, ledger rows and
frozen standings, and, when N is the current season, the players' cups fields, board season and
the board's counts (what a read's warning about season N's counts asks for).

Output (standard output; scripts may read it, it stays as it is), one line each, in this order:

- ``SUBJECT: FIELD stored X, recomputed Y`` for each difference, as it is found: a player's
  (``player NAME (id N)``) cups fields, statistics, board season, season rows (``..., season
  S``), ledger rows (``ledger match M, player ...``, ``ledger void of match M, ...``, ``ledger
  reset opening season S, ...``) and standings (``standings of season S, player ...``), player
  by player in id order; then the standings' ranks, then the board's counts (``board of season
  S, C cups: players ...``, ``board of season S: total ...``). ``none`` stands for a missing
  row, or a row that should not exist.
- ``No difference: the stored ladder is what the rounds give.`` when none was found;
- ``Fixed N difference(s).`` after ``--fix`` wrote them (frozen standings excepted);
- ``match M: completed T, not finalized`` for each stuck match.

A progress bar goes to standard error (on a terminal only), one for the ladder's pass over the
players, then one for the §12 figures' pass over the human players. Exit status: 0 when
nothing differs (or ``--fix`` wrote the recomputed values) and no match is stuck, 1 otherwise
(standings are never rewritten), with the reason on standard error.
"""

import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from delivery.sweep import overdue_before
from domain.errors import DomainError
from matches.selectors import matches_awaiting_finalization
from ranking.rebuild import CHUNK, Difference, ladder_rebuild


class Command(BaseCommand):
    help = (
        "Recompute cups, best cups, last cup change, board season, statistics (all time and "
        "per season) and the cups ledger from the finalized and voided matches and the season "
        "ends, check the leaderboard's counts and the frozen season standings, report every "
        "difference, and list the matches stuck before finalization. Exit status 1 when "
        "differences were found and not fixed, or a match is stuck; --fix writes the recomputed "
        "values (not the standings) and counts the board again."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--fix",
            action="store_true",
            help="write the recomputed values, one transaction per chunk of players "
            "(default: only report)",
        )
        parser.add_argument(
            "--season",
            type=int,
            default=None,
            metavar="N",
            help="only season N's figures (its statistics rows, ledger rows and standings; "
            "for the current season also the players' totals and the board's counts)",
        )
        parser.add_argument(
            "--chunk",
            type=int,
            default=CHUNK,
            metavar="N",
            help=f"players a chunk holds and rows one read fetches (default {CHUNK})",
        )

    def handle(self, *args, fix, season, chunk, **options):
        if chunk < 1:
            raise CommandError("--chunk must be at least 1")
        try:
            outcome = ladder_rebuild(
                fix=fix, season=season, chunk=chunk, report=self._report, progress=self._progress
            )
        except DomainError as error:
            raise CommandError(error.message) from error
        if not outcome.differences:
            self.stdout.write("No difference: the stored ladder is what the rounds give.")
        problems = []
        if outcome.differences and not fix:
            option = "" if season is None else f" --season {season}"
            problems.append(
                f"{outcome.differences} difference(s) found; run with --fix{option} to write "
                "the recomputed values"
            )
        if outcome.differences and fix:
            self.stdout.write(f"Fixed {outcome.differences - outcome.frozen} difference(s).")
            if outcome.frozen:
                problems.append(
                    f"{outcome.frozen} difference(s) in the standings of finalized seasons, "
                    "which are frozen and never rewritten"
                )
        if stuck := self._stuck_matches():
            problems.append(
                f"{stuck} match(es) completed more than {settings.KORT_SWEEP_GRACE_SECONDS} s "
                "ago and not finalized; the sweeper queues their finalization again "
                "(manage.py sweep does it now)"
            )
        if problems:
            raise CommandError("; ".join(problems), returncode=1)

    def _report(self, difference: Difference) -> None:
        self.stdout.write(str(difference))

    def _stuck_matches(self) -> int:
        """Print each stuck match; return how many there are."""
        stuck = list(matches_awaiting_finalization(completed_before=overdue_before()))
        for match in stuck:
            self.stdout.write(f"match {match.pk}: completed {match.completed_at}, not finalized")
        return len(stuck)

    def _progress(self, total):
        # disable=None: a bar on a terminal, nothing when the output is piped or captured.
        bar = tqdm(total=total, unit="player", desc="rebuilding", file=sys.stderr, disable=None)
        return bar.update

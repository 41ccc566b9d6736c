"""``manage.py rebuild_ladder [--fix]``: recompute the ladder from its history.

Recomputes every player's cups, best cups, last cup change, board season and statistics (all
time and per season), and the cups ledger with its running totals, from the finalized and
voided matches and the season ends, checks the counts of the current season's leaderboard
against the players and the finalized seasons' frozen standings (logic in ``ranking.rebuild``),
and prints each difference from what is stored. It also lists the stuck matches: completed
longer than ``KORT_SWEEP_GRACE_SECONDS`` ago and still not finalized, so their cups are missing
from the ladder (the sweeper queues their finalization again; ``manage.py sweep`` does it now).
Exit status: 0 when nothing differs (or ``--fix`` wrote the recomputed values) and no match is
stuck, 1 otherwise (standings are never rewritten).
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from delivery.sweep import overdue_before
from domain.errors import DomainError
from matches.selectors import matches_awaiting_finalization
from ranking.rebuild import ladder_rebuild


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
            help="write the recomputed values, in one transaction (default: only report)",
        )

    def handle(self, *args, fix, **options):
        try:
            differences = ladder_rebuild(fix=fix, track=self._progress)
        except DomainError as error:
            raise CommandError(error.message) from error
        for difference in differences:
            self.stdout.write(str(difference))
        if not differences:
            self.stdout.write("No difference: the stored ladder is what the rounds give.")
        problems = []
        if differences and not fix:
            problems.append(
                f"{len(differences)} difference(s) found; run with --fix to write the "
                "recomputed values"
            )
        if differences and fix:
            frozen = [difference for difference in differences if difference.frozen]
            self.stdout.write(f"Fixed {len(differences) - len(frozen)} difference(s).")
            if frozen:
                problems.append(
                    f"{len(frozen)} difference(s) in the standings of finalized seasons, which "
                    "are frozen and never rewritten"
                )
        if stuck := self._stuck_matches():
            problems.append(
                f"{stuck} match(es) completed more than {settings.KORT_SWEEP_GRACE_SECONDS} s "
                "ago and not finalized; the sweeper queues their finalization again "
                "(manage.py sweep does it now)"
            )
        if problems:
            raise CommandError("; ".join(problems), returncode=1)

    def _stuck_matches(self) -> int:
        """Print each stuck match; return how many there are."""
        stuck = list(matches_awaiting_finalization(completed_before=overdue_before()))
        for match in stuck:
            self.stdout.write(f"match {match.pk}: completed {match.completed_at}, not finalized")
        return len(stuck)

    def _progress(self, matches, total):
        # disable=None: a bar on a terminal, nothing when the output is piped or captured.
        return tqdm(matches, total=total, unit="match", desc="replaying", disable=None)

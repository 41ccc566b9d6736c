"""``manage.py rebuild_ladder [--fix]``: recompute the ladder from its history.

Recomputes every player's cups, best cups, last cup change and statistics (all time and per
season), and the cups ledger with its running totals, from the finalized and voided matches
and the season ends, and checks the finalized seasons' frozen standings (logic in
``ranking.rebuild``); prints each difference from what is stored. Exit status: 0 when nothing
differs (or ``--fix`` wrote the recomputed values), 1 when differences were found and not fixed
(standings are never rewritten).
"""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from domain.errors import DomainError
from ranking.rebuild import ladder_rebuild


class Command(BaseCommand):
    help = (
        "Recompute cups, best cups, last cup change, statistics (all time and per season) and "
        "the cups ledger from the finalized and voided matches and the season ends, check the "
        "frozen season standings, and report every difference. Exit status 1 when differences "
        "were found and not fixed; --fix writes the recomputed values (not the standings)."
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
            return
        if not fix:
            raise CommandError(
                f"{len(differences)} difference(s) found; run with --fix to write the "
                "recomputed values",
                returncode=1,
            )
        frozen = [difference for difference in differences if difference.frozen]
        self.stdout.write(f"Fixed {len(differences) - len(frozen)} difference(s).")
        if frozen:
            raise CommandError(
                f"{len(frozen)} difference(s) in the standings of finalized seasons, which are "
                "frozen and never rewritten",
                returncode=1,
            )

    def _progress(self, matches, total):
        # disable=None: a bar on a terminal, nothing when the output is piped or captured.
        return tqdm(matches, total=total, unit="match", desc="replaying", disable=None)

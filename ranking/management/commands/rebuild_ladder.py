"""``manage.py rebuild_ladder [--fix]``: recompute the ladder from the stored rounds.

Recomputes every player's cups, best cups, last cup change, board season and statistics, and
the cups ledger, from the finalized matches (logic in ``ranking.rebuild``), checks the counts of
the current season's leaderboard against the players, and prints each difference from what is
stored. Exit status: 0 when nothing differs (or ``--fix`` wrote the recomputed values), 1
when differences were found and not fixed.
"""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ranking.rebuild import ladder_rebuild


class Command(BaseCommand):
    help = (
        "Recompute cups, best cups, last cup change, board season, statistics and the cups "
        "ledger from the rounds of finalized matches, check the leaderboard's counts against "
        "the players, and report every difference. Exit status 1 when differences were found "
        "and not fixed; --fix writes the recomputed values and counts the board again."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--fix",
            action="store_true",
            help="write the recomputed values, in one transaction (default: only report)",
        )

    def handle(self, *args, fix, **options):
        differences = ladder_rebuild(fix=fix, track=self._progress)
        for difference in differences:
            self.stdout.write(str(difference))
        if not differences:
            self.stdout.write("No difference: the stored ladder is what the rounds give.")
        elif fix:
            self.stdout.write(f"Fixed {len(differences)} difference(s).")
        else:
            raise CommandError(
                f"{len(differences)} difference(s) found; run with --fix to write the "
                "recomputed values",
                returncode=1,
            )

    def _progress(self, matches, total):
        # disable=None: a bar on a terminal, nothing when the output is piped or captured.
        return tqdm(matches, total=total, unit="match", desc="replaying", disable=None)

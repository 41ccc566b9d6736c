"""``manage.py replay_check``: replay every stored round record and list the rounds whose stored
tricks, Bavan decision or outcome differ from the replay (KORT_RULES §1-§4). Exit code 1 when
any differs."""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from matches.selectors import recorded_rounds, replay_differences


class Command(BaseCommand):
    help = (
        "Replay every stored round record; list each round whose stored tricks, decision or "
        "outcome differ from the replay, and exit with 1 if any does."
    )

    def handle(self, *args, **options):
        recorded = recorded_rounds()
        total = recorded.count()
        differing = 0
        # disable=None: a bar on a terminal, nothing when the output is piped or captured.
        rounds = tqdm(
            recorded.iterator(), total=total, unit="round", desc="replaying", disable=None
        )
        for round_ in rounds:
            differences = replay_differences(round_)
            if differences:
                differing += 1
                where = f"match {round_.match_id} round {round_.number}"
                self.stdout.write(f"{where}: {'; '.join(differences)}")
        if differing:
            raise CommandError(
                f"{differing} of {total} recorded rounds differ from their replay", returncode=1
            )
        self.stdout.write(f"{total} recorded rounds replay as stored")

"""``manage.py ladder_status``: the health of the pipeline that finalizes matches and resolves
live votes (API.md "Nothing is lost").

Prints the matches waiting for finalization (completed, cups not applied yet) with the age of the
oldest, how many of them are overdue (waiting longer than ``KORT_SWEEP_GRACE_SECONDS``: their task
was lost, and the sweeper queues it again), and the open live votes past their deadline. A few
waiting for a second or two is the normal path; overdue ones that stay mean no worker or no beat
is running. Exit status 0: it reports, it does not judge (``rebuild_ladder`` fails on overdue
matches).
"""

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from delivery.sweep import overdue_before
from matches.live_vote.selectors import votes_past_deadline
from matches.selectors import matches_awaiting_finalization


class Command(BaseCommand):
    help = (
        "Print the matches waiting for finalization (how many, the oldest one's age, how many "
        "are overdue) and the open live votes past their deadline."
    )

    def handle(self, *args, **options):
        now = timezone.now()
        waiting = matches_awaiting_finalization()
        oldest = waiting.first()
        line = f"Matches waiting for finalization: {waiting.count()}"
        if oldest is not None:
            overdue = matches_awaiting_finalization(completed_before=overdue_before(now)).count()
            line += (
                f", the oldest (match {oldest.pk}) completed {_age(now, oldest.completed_at)} "
                f"ago; {overdue} overdue (waiting more than "
                f"{settings.KORT_SWEEP_GRACE_SECONDS} s)"
            )
        self.stdout.write(line)
        votes = votes_past_deadline(now)
        line = f"Open live votes past their deadline: {votes.count()}"
        if (vote := votes.first()) is not None:
            line += f", the oldest (vote {vote.pk}) {_age(now, vote.deadline)} past its deadline"
        self.stdout.write(line)


def _age(now, then) -> str:
    return f"{(now - then).total_seconds():.1f} s"

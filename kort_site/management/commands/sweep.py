"""``manage.py sweep``: run the sweeper once, now (API.md "Nothing is lost").

Celery beat runs it every ``KORT_SWEEP_SECONDS`` in production, and the development server on
the embedded default (no broker, tasks in-process: ``kort_site.embedded_beat``). There this
command does the overdue work itself: it finalizes the matches awaiting finalization and
resolves the live votes past their deadline. With a broker it queues the tasks for the workers.
Prints how many tasks of each kind it queued (or ran).
"""

from django.core.management.base import BaseCommand

from delivery.sweep import sweep
from kort_site.tasks import SWEEPS


class Command(BaseCommand):
    help = (
        "Queue again (or, with no broker, run now) the tasks of all overdue work: matches "
        "completed and not finalized, live votes past their deadline or with bot votes due."
    )

    def handle(self, *args, **options):
        for work, count in sweep(SWEEPS).items():
            self.stdout.write(f"{work}: {count}")

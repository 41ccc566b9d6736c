"""``manage.py runserver``: the development server (static files served as
``django.contrib.staticfiles`` serves them), which on the embedded default (no broker, tasks
in-process) also runs Celery beat's schedule itself (:mod:`kort_site.embedded_beat`).

``kort_site`` comes before ``django.contrib.staticfiles`` in INSTALLED_APPS so that this command
is the one ``runserver`` names. The schedule starts in :meth:`inner_run`, which runs only in the
process that serves: the autoreloader's child, or the one process with ``--noreload``.
"""

from django.conf import settings
from django.contrib.staticfiles.management.commands.runserver import Command as StaticRunserver

from kort_site import embedded_beat


class Command(StaticRunserver):
    def inner_run(self, *args, **options):
        if settings.CELERY_TASK_ALWAYS_EAGER:
            embedded_beat.start(settings.CELERY_BEAT_SCHEDULE)
        super().inner_run(*args, **options)

"""The Celery app: settings come from Django's ``CELERY_`` namespace (see settings.py). The
apps' tasks are registered when Django is set up (``kort_site.apps``), in the worker as in the
web service. A worker refuses to start with debug off and no real secret key."""

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kort_site.settings")

app = Celery("kort_site")
app.config_from_object("django.conf:settings", namespace="CELERY")


@worker_init.connect
def _refuse_unfit_secret(**kwargs):
    from kort_site.checks import require_real_secret

    require_real_secret()

"""The Celery app: settings come from Django's ``CELERY_`` namespace (see settings.py). The
apps' tasks are registered when Django is set up (``kort_site.apps``), in the worker as in the
web service. A worker or beat refuses to start with debug off and no real secret key. Around
each task a worker treats its database connections as Django treats them around a request,
and a worker whose broker is gone tries it again every 2 s at most (:class:`Consumer`)."""

import functools
import logging.config
import os

import kombu
from celery import Celery
from celery.signals import beat_init, setup_logging, task_postrun, task_prerun, worker_init
from celery.worker.consumer import Consumer as CeleryConsumer
from django.db import close_old_connections
from kombu.common import ignore_errors
from kombu.transport import redis as redis_transport

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kort_site.settings")

RECONNECT_SECONDS = {"interval_start": 1, "interval_step": 0.5, "interval_max": 2}
"""How a worker tries its lost broker again: 1 s after the loss, then 0.5 s longer each time,
never more than 2 s apart (kombu's ``ensure_connection``)."""


class Consumer(CeleryConsumer):
    """Celery's consumer (setting ``CELERY_WORKER_CONSUMER``), trying a lost broker again at the
    pace of :data:`RECONNECT_SECONDS` instead of Celery's 2 s more each time, up to 30 s.

    While the worker waits for its broker it runs nothing, and work lost in the outage waits
    for the sweeper (API.md "Conventions", "Nothing is lost"): with Celery's pace a 12 s outage
    kept the worker away 8 s more after Redis was back, a minute's outage up to 14 s more. A
    refused connection every 2 s costs a broker that is down nothing. The lost connection is
    let go without stopping the worker (:meth:`on_connection_error_after_connected`).
    """

    task_consumer: kombu.Consumer | None  # Celery's Tasks step sets it

    def ensure_connected(self, conn):
        conn.ensure_connection = functools.partial(conn.ensure_connection, **RECONNECT_SECONDS)
        return super().ensure_connected(conn)

    def on_connection_error_after_connected(self, exc: Exception) -> None:
        """Close the lost connection's task channel, then clean up as Celery does.

        Celery's cleanup can detach kombu's Redis transport (5.7.0) while the task channel is
        still open; handing back the channel's unacknowledged messages, or acknowledging one
        later, then raises ``AttributeError: 'NoneType' object has no attribute 'hostname'``
        and the worker exits. The first close only ends the channel's pending read.
        """
        channel = self.task_consumer.channel if self.task_consumer is not None else None
        if self.connection is not None and isinstance(channel, redis_transport.Channel):
            ignore_errors(self.connection, channel.close)
            ignore_errors(self.connection, channel.close)
        super().on_connection_error_after_connected(exc)


app = Celery("kort_site")
app.config_from_object("django.conf:settings", namespace="CELERY")


if os.environ.get("DJANGO_LOG_FORMAT") == "json":

    @setup_logging.connect
    def _json_lines(**kwargs):
        """With a receiver here Celery leaves its logging alone: Django's ``LOGGING`` writes
        the worker's lines, as JSON (``kort_site.operations.logs``)."""
        from django.conf import settings

        logging.config.dictConfig(settings.LOGGING)


@worker_init.connect
@beat_init.connect
def _refuse_unfit_secret(**kwargs):
    """A worker or beat with an unfit secret key exits with status 1 and the guard's message
    (Celery would log an exception raised here and start all the same)."""
    from kort_site.checks import secret_problem

    problem = secret_problem()
    if problem:
        raise SystemExit(problem)


@task_prerun.connect
@task_postrun.connect
def _recycle_connections(task=None, **kwargs):
    """Close the database connections that are past ``CONN_MAX_AGE`` or broken, and have the
    others health-checked before their next use, as Django does around each request (settings
    ``CELERY_DB_REUSE_MAX``). A task run in-process runs inside its caller's transaction: its
    connection is left alone."""
    if task is not None and not getattr(task.request, "is_eager", False):
        close_old_connections()

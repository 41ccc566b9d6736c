"""The service's Prometheus metrics (API.md "Operating the service").

- django-prometheus' request metrics, from :class:`RequestMetricsMiddleware`: among them
  ``django_http_responses_total_by_status_view_method`` (every answer by status, view (the URL
  pattern's name) and method) and ``django_http_requests_latency_seconds_by_view_method`` (its
  seconds, by view and method and here also by status);
- ``kort_celery_tasks_total`` and ``kort_celery_task_duration_seconds``: every task run, by
  task and outcome (``success``, ``failure``, ``retry``, ...), from Celery's signals;
  ``kort_celery_soft_time_limits_total``: tasks stopped at the soft time limit, by task;
- ``kort_queue_publish_failures_total``: tasks that could not be handed to the broker
  (``delivery.queue``);
- the ladder's figures, read from the database at each scrape (``ranking.status``), and
  ``kort_database_up``.

With ``PROMETHEUS_MULTIPROC_DIR`` set, every process (each gunicorn worker, each Celery pool
process) writes its counts to files in that directory and a scrape adds them up, so the
figures are the installation's whichever process answers (prometheus-client's multiprocess
mode; ``gunicorn.conf.py`` empties the directory when gunicorn starts, the Celery worker when
it starts, and with ``KORT_WORKER_METRICS_PORT`` the worker serves its processes' sum on that
port). Without it, as on the embedded default, a scrape reads this process's counts.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import (
    task_failure,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_shutdown,
    worker_ready,
)
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django_prometheus.middleware import Metrics, PrometheusAfterMiddleware
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from rest_framework_api_key.models import APIKey

from kort_site.operations.unavailable import DATABASE_ERRORS, database_down

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
LATENCY = "django_http_requests_latency_seconds_by_view_method"
RAISED = "exception"
"""The status of the latency django-prometheus records once more when a view raises, before
Django makes the exception an answer (which is timed with its own status)."""
DATABASE_UP = "1 when the database answered this scrape's figures, else 0 (and none of them)."
CREDENTIAL = "kort.credential"
"""Where a request's credential name is left in its WSGI environ, for gunicorn's access log."""

disable_created_metrics()  # a ``_created`` series per counter doubles a scrape and tells nothing

TASKS = Counter("kort_celery_tasks", "Celery tasks run, by task and outcome.", ["task", "outcome"])
TASK_SECONDS = Histogram(
    "kort_celery_task_duration_seconds",
    "Seconds a Celery task ran, by task and outcome.",
    ["task", "outcome"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15),
)
SOFT_TIME_LIMITS = Counter(
    "kort_celery_soft_time_limits",
    "Celery tasks stopped at their soft time limit (CELERY_TASK_SOFT_TIME_LIMIT), by task.",
    ["task"],
)

task_log = logging.getLogger("kort_site.tasks")


def credential_name(request: HttpRequest) -> str | None:
    """The name of the credential a request was served under: ``service key <name>`` or
    ``player <username>``; None without one (or before DRF authenticated it). Never the key
    or the token itself."""
    auth = getattr(request, "auth", None)  # DRF copies it onto Django's request
    if isinstance(auth, APIKey):
        return f"service key {auth.name}"
    user = getattr(auth, "user", None)
    return f"player {user.get_username()}" if user is not None else None


class RequestMetrics(Metrics):
    """django-prometheus' request metrics, with the status among the latency's labels."""

    def register_metric(self, metric_cls, name, documentation, labelnames=(), **kwargs):
        if name == LATENCY:
            labelnames = [*labelnames, "status"]
        return super().register_metric(metric_cls, name, documentation, labelnames, **kwargs)


class RequestMetricsMiddleware(PrometheusAfterMiddleware):
    """First in ``MIDDLEWARE``: django-prometheus counts and times every answer, those of the
    other middleware and errors included; the credential's name is left in the WSGI environ
    for the access log (``kort_site.operations.logs``)."""

    metrics_cls = RequestMetrics

    def label_metric(self, metric, request, response=None, **labels):
        if metric is self.metrics.requests_latency_by_view_method:
            labels["status"] = str(response.status_code) if response is not None else RAISED
        return super().label_metric(metric, request, response, **labels)

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        request.META[CREDENTIAL] = credential_name(request) or "-"
        return super().process_response(request, response)


_task_started: dict[str, float] = {}


@task_prerun.connect
def _task_start(task_id: str | None = None, **kwargs) -> None:
    if task_id is not None:
        _task_started[task_id] = time.perf_counter()


@task_postrun.connect
def _task_done(task_id=None, task=None, state=None, **kwargs) -> None:
    started = _task_started.pop(task_id, None)
    if started is None or task is None:
        return
    seconds = time.perf_counter() - started
    outcome = (state or "unknown").lower()
    TASKS.labels(task.name, outcome).inc()
    TASK_SECONDS.labels(task.name, outcome).observe(seconds)
    task_log.info(
        "task %s %s in %.3f s",
        task.name,
        outcome,
        seconds,
        extra={"task": task.name, "task_id": task_id, "duration": seconds, "outcome": outcome},
    )


@task_failure.connect
def _soft_time_limit(sender=None, exception=None, **kwargs) -> None:
    if isinstance(exception, SoftTimeLimitExceeded) and sender is not None:
        SOFT_TIME_LIMITS.labels(sender.name).inc()


@worker_process_shutdown.connect
def _pool_process_gone(pid: int | None = None, **kwargs) -> None:
    if os.environ.get(MULTIPROC_DIR):
        multiprocess.mark_process_dead(pid or os.getpid())


@worker_init.connect
def _worker_counts_afresh(**kwargs) -> None:
    """A worker starts from no counts, as gunicorn does (``gunicorn.conf.py``): the files of an
    earlier run's processes would add to this one's."""
    directory = os.environ.get(MULTIPROC_DIR)
    if directory:
        shutil.rmtree(directory, ignore_errors=True)
        Path(directory).mkdir(parents=True, exist_ok=True)


@worker_ready.connect
def _serve_worker_counts(**kwargs) -> None:
    """With ``KORT_WORKER_METRICS_PORT``, the worker serves its processes' counts there (the sum
    of its pool's with ``PROMETHEUS_MULTIPROC_DIR``), for Prometheus to scrape."""
    if settings.KORT_WORKER_METRICS_PORT:
        start_http_server(settings.KORT_WORKER_METRICS_PORT, registry=process_counts())


class LadderCollector(Collector):
    """The ladder's own figures (``ranking.status.pipeline_figures``), read at each scrape, and
    whether the database answered them (``kort_database_up``; none of them when it did not)."""

    def collect(self) -> Iterator[Metric]:
        from ranking.status import pipeline_figures

        try:
            figures = pipeline_figures()
        except DATABASE_ERRORS as error:
            if not database_down(error):
                raise
            yield GaugeMetricFamily("kort_database_up", DATABASE_UP, value=0)
            return
        yield GaugeMetricFamily("kort_database_up", DATABASE_UP, value=1)
        yield GaugeMetricFamily(
            "kort_matches_waiting",
            "Matches completed and not finalized yet.",
            value=figures.matches_waiting,
        )
        yield GaugeMetricFamily(
            "kort_matches_oldest_waiting_seconds",
            "Seconds the earliest completed match not finalized yet has waited (0: none waits).",
            value=figures.oldest_waiting_seconds,
        )
        yield GaugeMetricFamily(
            "kort_votes_overdue",
            "Open live Bavan votes past their deadline.",
            value=figures.votes_overdue,
        )
        yield CounterMetricFamily(
            "kort_matches_finalized",
            "Matches finalized (their cups and statistics applied); a void takes none off.",
            value=figures.matches_finalized,
        )
        yield GaugeMetricFamily(
            "kort_season_end_running",
            "1 while a season's end is claimed and not done, else 0.",
            value=int(figures.season_end_running),
        )


_ladder = CollectorRegistry()
_ladder.register(LadderCollector())


def scrape() -> bytes:
    """Every metric in the Prometheus text format: the processes' counts (all of this
    installation's processes that share ``PROMETHEUS_MULTIPROC_DIR``, or this one's), then the
    ladder's figures as the database holds them now."""
    return generate_latest(process_counts()) + generate_latest(_ladder)


def process_counts() -> CollectorRegistry:
    """The counts of all the processes sharing ``PROMETHEUS_MULTIPROC_DIR``, or this one's."""
    if not os.environ.get(MULTIPROC_DIR):
        return REGISTRY
    counts = CollectorRegistry()
    multiprocess.MultiProcessCollector(counts)
    return counts

"""The service's Prometheus metrics (API.md "Operating the service").

- ``kort_http_requests_total`` and ``kort_http_request_duration_seconds``: every answer, by
  view (the URL pattern's name), method and status, from :class:`RequestMetricsMiddleware`;
- ``kort_celery_tasks_total`` and ``kort_celery_task_duration_seconds``: every task run, by
  task and outcome (``success``, ``failure``, ``retry``, ...), from Celery's signals;
- ``kort_queue_publish_failures_total``: tasks that could not be handed to the broker
  (``delivery.queue``);
- the ladder's figures, read from the database at each scrape (``ranking.status``).

With ``PROMETHEUS_MULTIPROC_DIR`` set, every process (each gunicorn worker, each Celery pool
process) writes its counts to files in that directory and a scrape adds them up, so the
figures are the installation's whichever process answers (prometheus-client's multiprocess
mode; ``gunicorn.conf.py`` empties the directory when gunicorn starts). Without it, as on the
embedded default, a scrape reads this process's counts.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator

from celery.signals import task_postrun, task_prerun, worker_process_shutdown
from django.http import HttpRequest, HttpResponse
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from rest_framework_api_key.models import APIKey

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
NO_VIEW = "none"
"""The view of a request no URL pattern matched (a 404 of the resolver)."""
CREDENTIAL = "kort.credential"
"""Where a request's credential name is left in its WSGI environ, for gunicorn's access log."""

disable_created_metrics()  # a ``_created`` series per counter doubles a scrape and tells nothing

REQUESTS = Counter(
    "kort_http_requests",
    "Requests answered, by view, method and status.",
    ["view", "method", "status"],
)
REQUEST_SECONDS = Histogram(
    "kort_http_request_duration_seconds",
    "Seconds from a request's arrival in Django to its answer, by view, method and status.",
    ["view", "method", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
TASKS = Counter("kort_celery_tasks", "Celery tasks run, by task and outcome.", ["task", "outcome"])
TASK_SECONDS = Histogram(
    "kort_celery_task_duration_seconds",
    "Seconds a Celery task ran, by task and outcome.",
    ["task", "outcome"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15),
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


class RequestMetricsMiddleware:
    """First in ``MIDDLEWARE``: counts and times every answer, errors included, and leaves the
    credential's name in the WSGI environ for the access log (``kort_site.operations.logs``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        seconds = time.perf_counter() - started
        match = request.resolver_match
        view = (match.view_name or match.route) if match is not None else NO_VIEW
        method = request.method if request.method in METHODS else "other"
        labels = (view, method, str(response.status_code))
        REQUESTS.labels(*labels).inc()
        REQUEST_SECONDS.labels(*labels).observe(seconds)
        request.META[CREDENTIAL] = credential_name(request) or "-"
        return response


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


@worker_process_shutdown.connect
def _pool_process_gone(pid: int | None = None, **kwargs) -> None:
    if os.environ.get(MULTIPROC_DIR):
        multiprocess.mark_process_dead(pid or os.getpid())


class LadderCollector(Collector):
    """The ladder's own figures (``ranking.status.pipeline_figures``), read at each scrape."""

    def collect(self) -> Iterator[Metric]:
        from ranking.status import pipeline_figures

        figures = pipeline_figures()
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
            "Matches finalized (their cups and statistics applied), voided ones included.",
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
    if os.environ.get(MULTIPROC_DIR):
        counts = CollectorRegistry()
        multiprocess.MultiProcessCollector(counts)
    else:
        counts = REGISTRY
    return generate_latest(counts) + generate_latest(_ladder)

"""The worker's own metrics (README "Health checks, metrics and logs"): with
``KORT_WORKER_METRICS_PORT`` and ``PROMETHEUS_MULTIPROC_DIR`` a real worker serves on that port
the tasks its pool processes ran, starting from no counts."""

import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.api_steps import ids_of, match_play, round_body
from tests.delivery.test_faults import finalized, seconds_until
from tests.worker import celery_worker, free_port

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

DONE = ("kort_celery_tasks_total", (("outcome", "success"), ("task", "ranking.finalize_match")))


def worker_samples(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_the_worker_serves_its_pools_task_counts(private_redis, service, cast, tmp_path):
    directory = tmp_path / "metrics"
    directory.mkdir()
    (directory / "counter_1.db").write_bytes(b"")  # an earlier run's, removed at the start
    port = free_port()
    with celery_worker(
        broker_url=private_redis.url,
        PROMETHEUS_MULTIPROC_DIR=str(directory),
        KORT_WORKER_METRICS_PORT=str(port),
    ):
        assert not (directory / "counter_1.db").exists()
        matches = [match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")]) for _ in "ab"]
        for match_id in matches:
            seconds_until(finalized(match_id), "finalized by the worker")
        seconds_until(lambda: worker_samples(port).get(DONE) == 2, "both counted on the port")

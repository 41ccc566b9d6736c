"""The worker's consumer tries a lost broker again at most 2 s apart (kort_site.celery.Consumer;
API.md "Conventions": a worker carries on by itself once the broker is back)."""

from celery.utils.imports import symbol_by_name

from kort_site.celery import Consumer, app


class RecordingConnection:
    """Stands for kombu's connection: notes how Celery asks it to wait for its broker."""

    def ensure_connection(self, errback=None, max_retries=None, **waits):
        self.waits = waits
        return self


def test_the_worker_runs_the_projects_consumer():
    assert symbol_by_name(app.conf.worker_consumer) is Consumer


def test_a_lost_broker_is_tried_again_at_most_2_s_apart():
    consumer = object.__new__(Consumer)  # only what ensure_connected reads
    consumer.app = app
    consumer.first_connection_attempt = False
    consumer.broker_connection_retry_attempt = 0
    connection = RecordingConnection()

    assert consumer.ensure_connected(connection) is connection

    waits = connection.waits
    assert waits["interval_max"] <= 2
    assert waits["interval_start"] <= waits["interval_max"]
    assert "callback" in waits  # Celery's own check for a stop asked meanwhile is kept

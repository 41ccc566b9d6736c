"""A worker lets go of a lost Redis connection without stopping (kort_site.celery.Consumer),
also when its task channel holds an unacknowledged message and another channel's close meets the
dead broker first; the message is acknowledged through its channel once Redis is back."""

from types import SimpleNamespace
from typing import Any

import pytest
from kombu import Connection, Exchange, Queue

from kort_site.celery import Consumer, app

pytestmark = [
    pytest.mark.redis,
    pytest.mark.filterwarnings("ignore::celery.exceptions.CPendingDeprecationWarning"),
]


def test_a_lost_connection_holding_a_message_is_let_go(private_redis):
    connection = Connection(private_redis.url)
    work = Queue("work", Exchange("work"), "work")
    with connection.Producer() as producer:
        producer.publish({"n": 1}, exchange=work.exchange, routing_key="work", declare=[work])
    held = []
    tasks = connection.Consumer([work], callbacks=[lambda body, message: held.append(message)])
    tasks.consume()
    # Like the worker's remote control: an auto-deleted fanout queue on a channel of its own.
    control = Queue("control", Exchange("control", type="fanout"), auto_delete=True)
    connection.Consumer([control], channel=connection.channel()).consume()
    while not held:  # an event of the fanout channel may come first
        connection.drain_events(timeout=2)
    channel: Any = tasks.channel
    channel._brpop_start()  # the worker's event loop keeps a read of the queue pending
    private_redis.stop()

    consumer: Any = object.__new__(Consumer)  # only what the cleanup reads
    consumer.app = app
    consumer.connection = connection
    consumer.task_consumer = tasks
    consumer.qos_global = False
    consumer.pool = SimpleNamespace(num_processes=1)
    consumer.prefetch_multiplier = 1
    consumer.on_connection_error_after_connected(ConnectionError("the broker is gone"))

    assert consumer.connection is None
    private_redis.start()
    held[0].ack()

"""Fixtures of the delivery tests: a broker of the test's own to break and mend."""

import pytest

from tests.worker import RedisServer


@pytest.fixture
def private_redis():
    """A running ``redis-server`` of this test alone (``.url``); ``.stop()`` kills it and
    ``.start()`` brings it back, empty, on the same port. Killed when the test ends."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()

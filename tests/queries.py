"""Counting the data statements one API request costs, so a test can pin that count and a later
change cannot quietly add an N+1. Transaction control (BEGIN / COMMIT / SAVEPOINT / RELEASE) is
not counted, and neither is what a request queues on commit (finalization runs in its own task,
and tests/ranking pins its own count)."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

TRANSACTION_CONTROL = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT", "BEGIN", "COMMIT")


def data_statements(captured: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"] for q in captured.captured_queries if not q["sql"].startswith(TRANSACTION_CONTROL)
    ]


def post_counted(client, path: str, body: dict | None = None) -> tuple[int, list[str]]:
    """POST through the test client without running what it queues on commit; the answer must
    be a 200 or a 201. Returns its status and its data statements."""
    with CaptureQueriesContext(connection) as captured:
        response = client.client.post(path, body, format="json")
    assert response.status_code in (200, 201), response.data
    return response.status_code, data_statements(captured)


def get_counted(client, path: str, params: dict | None = None) -> list[str]:
    """GET through the test client; the answer must be a 200. Returns its data statements."""
    with CaptureQueriesContext(connection) as captured:
        response = client.client.get(path, params, format="json")
    assert response.status_code == 200, response.data
    return data_statements(captured)


def assert_flat(small: list[str], large: list[str], at_most: int) -> None:
    """The same count of statements with little data and with more, and no more than
    ``at_most`` (today's count)."""
    assert len(small) == len(large), (len(small), len(large), "\n".join(large))
    assert len(large) <= at_most, "\n".join(large)

"""How many data statements each write and read of matches costs, so a later change cannot
quietly add an N+1 (SAVEPOINT / RELEASE and the queued tasks not counted: finalization runs in
its own task, and tests/ranking pins its own count)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api_steps import MATCHES, ids_of, match_start, round_body

TRANSACTION_CONTROL = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT", "BEGIN", "COMMIT")


def data_statements(captured: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"] for q in captured.captured_queries if not q["sql"].startswith(TRANSACTION_CONTROL)
    ]


def post_counted(client, path: str, body: dict) -> tuple[int, list[str]]:
    """POST through the test client without running what it queues on commit."""
    with CaptureQueriesContext(connection) as captured:
        response = client.client.post(path, body, format="json")
    assert response.status_code in (200, 201), response.data
    return response.status_code, data_statements(captured)


@pytest.fixture
def match_id(service, cast) -> int:
    return match_start(service, ids_of(cast))


def test_a_round_report_costs_at_most_6_statements(service, match_id):
    _, statements = post_counted(
        service, f"{MATCHES}{match_id}/rounds/", {"number": 1, **round_body(0, 7, 3)}
    )

    assert len(statements) <= 6, "\n".join(statements)


def test_the_final_round_costs_at_most_7_statements(service, match_id):
    post_counted(service, f"{MATCHES}{match_id}/rounds/", {"number": 1, **round_body(0, 7, 3)})

    _, statements = post_counted(
        service, f"{MATCHES}{match_id}/rounds/", {"number": 2, **round_body(0, 7, 0, "stop")}
    )

    assert len(statements) <= 7, "\n".join(statements)


def test_a_round_report_does_not_grow_with_the_rounds_before_it(service, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    # Room match to 7: trump stays with seat 0 while team A wins.
    counts = []
    for number in range(1, 6):
        _, statements = post_counted(
            service, f"{MATCHES}{match_id}/rounds/", {"number": number, **round_body(0, 7, 3)}
        )
        counts.append(len(statements))

    assert len(set(counts)) == 1, counts


@pytest.mark.parametrize(
    ("mode", "rounds"),
    [("ranked", 3), ("room", 7)],
    ids=["ranked-3-rounds", "room-7-rounds"],
)
def test_a_whole_match_costs_7_statements_whatever_its_rounds(service, cast, mode, rounds):
    # Team A wins every round 7:3, so trump stays with seat 0 (KORT_RULES §5) to the target.
    body = {"mode": mode, "seats": ids_of(cast), "rounds": [round_body(0, 7, 3)] * rounds}

    status, statements = post_counted(service, MATCHES, body)

    assert status == 201
    assert len(statements) == 7, "\n".join(statements)


def test_reading_a_match_does_not_grow_with_its_rounds(api, service, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    for number in range(1, 4):
        post_counted(
            service, f"{MATCHES}{match_id}/rounds/", {"number": number, **round_body(0, 7, 3)}
        )

    with CaptureQueriesContext(connection) as captured:
        assert api.get(f"{MATCHES}{match_id}/").status_code == 200

    assert len(data_statements(captured)) <= 4, "\n".join(data_statements(captured))

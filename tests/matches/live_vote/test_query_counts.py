"""How many data statements the live Bavan vote's requests cost (API.md "Live Bavan vote";
KORT_RULES §4): casting a vote, reading it, finishing the round after ``go`` and leaving a seat
each cost the same in a match's first round as after three rounds before it, and no more than
today's count. Transaction control and the tasks queued on commit are not counted."""

from __future__ import annotations

import pytest

from tests.api_steps import round_body, rounds_report
from tests.queries import assert_flat, get_counted, post_counted

EARLIER_ROUNDS = 3
"""Plain wins of team A before the measured round: trump stays with seat 0 (KORT_RULES §5),
and a failed Bavan after them still leaves the room match (to 7 wins) under way."""


@pytest.fixture
def tables(clock, seat_table):
    """``tables()``: two room matches of the cast, each at round ``n`` with its vote open
    (team A, trump seat 0, 7:0): the first at round 1, the second after ``EARLIER_ROUNDS``
    plain wins. Returns ``[(table, n), ...]``."""

    def start():
        opened = []
        for earlier in (0, EARLIER_ROUNDS):
            table = seat_table(mode="room")
            rounds_report(table.service, table.match_id, [round_body(0, 7, 3)] * earlier)
            table.open_vote(trump_seat=0)
            opened.append((table, earlier + 1))
        return opened

    return start


def vote_url(table, number: int) -> str:
    return f"{table.url}rounds/{number}/vote/"


@pytest.mark.parametrize(
    ("seat", "at_most"), [(0, 12), (2, 14)], ids=["the-first-vote", "the-deciding-vote"]
)
def test_a_vote_cast_costs_the_same_statements_in_round_1_or_after_3_rounds(tables, seat, at_most):
    counts = []
    for table, number in tables():
        if seat == 2:
            table.vote(0, "bavan", number)
        _, statements = post_counted(table.player(seat), vote_url(table, number), {"vote": "bavan"})
        counts.append(statements)

    assert_flat(counts[0], counts[1], at_most=at_most)


def test_reading_a_vote_costs_the_same_statements_in_round_1_or_after_3_rounds(tables):
    counts = []
    for table, number in tables():
        table.vote(0, "bavan", number)
        counts.append(get_counted(table.api, vote_url(table, number)))

    assert_flat(counts[0], counts[1], at_most=5)


def test_finishing_a_bavan_costs_the_same_statements_in_round_1_or_after_3_rounds(tables):
    counts = []
    for table, number in tables():
        table.vote(0, "bavan", number)
        table.vote(2, "bavan", number)
        finish = f"{table.url}rounds/{number}/finish/"
        _, statements = post_counted(table.service, finish, {"tricks": {"A": 9, "B": 1}})
        counts.append(statements)

    assert_flat(counts[0], counts[1], at_most=13)


def test_leaving_a_seat_costs_the_same_statements_with_0_or_3_rounds_played(clock, seat_table):
    counts = []
    for earlier in (0, EARLIER_ROUNDS):
        table = seat_table(mode="room")
        rounds_report(table.service, table.match_id, [round_body(0, 7, 3)] * earlier)
        _, statements = post_counted(table.service, f"{table.url}seats/1/leave/")
        counts.append(statements)

    assert_flat(counts[0], counts[1], at_most=5)

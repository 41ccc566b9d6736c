"""The database backs the live vote's invariants (KORT_RULES §2, §4): a finished round has an
outcome and an open one has none, a match has one open round at a time, a seat votes once."""

import pytest
from django.db import IntegrityError

from matches.live_vote.models import SeatVote
from matches.models import Round
from tests.matches.live_vote.conftest import at


def round_of(table, number: int, **fields) -> Round:
    return Round(
        match_id=table.match_id, number=number, trump_seat=0, tricks_a=7, tricks_b=0, **fields
    )


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"status": "finished"}, id="finished with no outcome"),
        pytest.param(
            {"status": "voting", "outcome": "kort", "winner": "A", "wins_awarded": 5},
            id="voting with an outcome",
        ),
    ],
)
def test_status_finished_goes_with_an_outcome(table, fields):
    with pytest.raises(IntegrityError):
        round_of(table, 1, **fields).save()


def test_a_match_has_one_open_round_at_a_time(clock, table):
    table.open_vote()

    with pytest.raises(IntegrityError):
        round_of(table, 2, status="bavan").save()


def test_a_seat_votes_once(clock, table):
    table.open_vote()
    table.vote(0, "bavan")

    with pytest.raises(IntegrityError):
        SeatVote.objects.create(vote_id=table.vote_id(), seat=0, choice="stop", at=at(1))

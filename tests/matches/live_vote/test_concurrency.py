"""Two votes arriving at the same moment resolve the vote once (KORT_RULES §4): the vote row is
locked and the resolution claims it with a conditional update. Needs PostgreSQL row locks."""

import threading

import pytest
from django.db import connection

from domain.errors import Conflict
from matches.kort.rules import Vote
from matches.live_vote import services as votes
from matches.live_vote.models import BavanVote
from matches.models import Match, Round

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def cast_together(table, choices: dict[int, str]) -> dict[int, str]:
    """Cast each seat's vote from its own thread, released at once; returns seat -> result
    (``cast`` or ``conflict``)."""
    start = threading.Barrier(len(choices))
    results = {}

    def cast(seat: int, choice: str):
        try:
            start.wait()
            votes.vote_cast(
                match_id=table.match_id,
                number=1,
                player=table.players[seat],
                choice=Vote(choice),
            )
            results[seat] = "cast"
        except Conflict:
            results[seat] = "conflict"
        finally:
            connection.close()

    threads = [threading.Thread(target=cast, args=item) for item in choices.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.parametrize("rerun", range(3))
def test_two_stops_at_once_finish_the_kort_once(table, rerun):
    table.open_vote()

    results = cast_together(table, {0: "stop", 2: "stop"})

    assert sorted(results.values()) == ["cast", "conflict"]
    assert BavanVote.objects.get().status == "refused"
    assert Round.objects.get().outcome == "kort"
    assert Match.objects.get().wins_a == 5


@pytest.mark.parametrize("rerun", range(3))
def test_two_bavans_at_once_both_count_and_go_once(table, rerun):
    table.open_vote()

    results = cast_together(table, {0: "bavan", 2: "bavan"})

    assert results == {0: "cast", 2: "cast"}
    vote = BavanVote.objects.get()
    assert (vote.status, vote.seat_votes.count()) == ("go", 2)
    assert Round.objects.get().status == "bavan"


@pytest.mark.parametrize("rerun", range(5))
def test_a_bavan_and_a_stop_at_once_always_refuse(table, rerun):
    # KORT_RULES §4: a stop refuses at once; a bavan counted before it is stored before it,
    # and one that comes after the refusal is refused (409). The stop itself is never refused.
    table.open_vote()

    results = cast_together(table, {0: "bavan", 2: "stop"})

    assert results[2] == "cast"
    vote = BavanVote.objects.get()
    stored = list(vote.seat_votes.order_by("id").values_list("seat", "choice", "at"))
    assert vote.status == "refused"
    assert [(seat, choice) for seat, choice, _ in stored] == (
        [(0, "bavan"), (2, "stop")] if results[0] == "cast" else [(2, "stop")]
    )
    assert [at for *_, at in stored] == sorted(at for *_, at in stored)
    assert vote.resolved_at == stored[-1][2]
    assert Round.objects.get().outcome == "kort"

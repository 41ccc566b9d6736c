"""Reads of a live vote never write (KORT_RULES §4; API.md "Live Bavan vote"): the vote's GET,
the match's GET and the match page show the vote as stored plus what is due by then (the bots'
votes, stamped when due, and the resolution past the deadline), computed in memory; the
timed tasks, the sweeper and the write requests are the ones that write it, the same."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace

from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.details import MatchDetail, match_detail, match_seen
from matches.history import HistoryRound
from matches.live_vote.models import BavanVote, SeatVote
from matches.models import Round
from tests.matches.live_vote.conftest import at, iso

WRITES = ("INSERT", "UPDATE", "DELETE")


@contextmanager
def no_writes():
    """Fail if a statement run inside writes a row."""
    with CaptureQueriesContext(connection) as queries:
        yield
    written = [q["sql"] for q in queries.captured_queries if q["sql"].lstrip().startswith(WRITES)]
    assert written == []


def stored(table) -> tuple:
    vote = BavanVote.objects.get(round__match_id=table.match_id)
    round_ = Round.objects.get(match_id=table.match_id, number=1)
    return vote.status, vote.resolved_at, SeatVote.objects.count(), round_.status


def test_reading_a_vote_past_its_bot_votes_and_deadline_writes_nothing(clock, seat_table):
    table = seat_table(bots=(2,))
    table.open_vote()
    clock.move_to(at(45))

    with no_writes():
        state = table.state()

    # A bot beside a human: its bavan at 2 s, then silence: go at the deadline (§4).
    assert (state["status"], state["resolved_at"]) == ("go", iso(at(30)))
    assert state["votes"] == {"2": {"vote": "bavan", "at": iso(at(2)), "bot": True}}
    assert stored(table) == ("open", None, 0, "voting")


def test_reading_the_match_shows_a_refusal_due_without_writing_it(clock, seat_table):
    table = seat_table(bots=(0, 2), mode="room")
    table.open_vote()
    clock.move_to(at(3))

    with no_writes():
        match = table.match()

    # Two bots, unknown hands: stop at 2 s, refused; the Kort gives team A 5 wins (§2, §4).
    assert match["rounds"][0]["status"] == "finished"
    assert match["rounds"][0]["outcome"] == "kort"
    assert match["wins"] == {"A": 5, "B": 0}
    assert match["next_trump_seat"] == 2
    assert stored(table) == ("open", None, 0, "voting")


def test_the_match_read_is_plain_values_and_a_due_refusal_shows_on_a_new_one(clock, seat_table):
    table = seat_table(bots=(0, 2), mode="room")
    table.open_vote()
    with no_writes():
        before = match_detail(table.match_id, at(1))  # the bots vote at 2 s: nothing due yet
        later = match_detail(table.match_id, at(3))
    assert later.vote is not None

    seen = match_seen(before, later.vote)

    assert type(before) is MatchDetail
    assert [type(round_) for round_ in before.rounds] == [HistoryRound]
    assert before.vote is not None and before.vote.status == "open"
    # The value read at 1 s is left as it was; the one shown at 3 s is the refusal's (§2, §4).
    assert (before.rounds[0].status, before.wins_a, before.next_trump_seat) == ("voting", 0, 0)
    assert (seen.rounds[0].status, seen.rounds[0].outcome) == ("finished", "kort")
    assert (seen.wins_a, seen.wins_b, seen.next_trump_seat) == (5, 0, 2)
    assert seen == later
    assert stored(table) == ("open", None, 0, "voting")


def test_the_match_page_past_the_deadline_writes_nothing(clock, client, table):
    table.open_vote()
    clock.move_to(at(31))

    with no_writes():
        page = client.get(f"/en/matches/{table.match_id}/")

    assert page.status_code == 200
    assert "No Bavan: the Kort counts" in page.content.decode()
    assert stored(table) == ("open", None, 0, "voting")


def test_what_a_read_showed_is_what_the_next_write_stores(clock, seat_table):
    table = seat_table(bots=(2,))
    table.open_vote()
    clock.move_to(at(3.5))
    shown = table.state()["votes"]
    clock.move_to(at(4))

    voted = table.vote(0, "stop")

    assert voted.status_code == 201, voted.data
    assert (
        voted.data["votes"]["2"] == shown["2"] == {"vote": "bavan", "at": iso(at(2)), "bot": True}
    )
    assert (voted.data["status"], voted.data["resolved_at"]) == ("refused", iso(at(4)))
    assert stored(table) == ("refused", at(4), 2, "finished")


def test_a_due_refusal_that_wins_the_match_shows_it_completed_at_the_refusal(clock, seat_table):
    table = seat_table(bots=(0, 2), mode="room")
    table.open_vote()
    with no_writes():
        before = match_detail(table.match_id, at(1))
        later = match_detail(table.match_id, at(3))
    assert later.vote is not None and later.vote.resolved_at == at(2)

    # Team A two wins short of the room's 7 (§1): the Kort's 5 wins end the match (§2, §4).
    seen = match_seen(replace(before, wins_a=2), later.vote)

    assert (seen.status, seen.winner, seen.wins_a) == ("completed", "A", 7)
    assert seen.completed_at == at(2)
    assert later.completed_at is None and later.status == "in_progress"
    assert stored(table) == ("open", None, 0, "voting")

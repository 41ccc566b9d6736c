"""Timed work of a vote done when the vote is next used (KORT_RULES §4): reading the vote,
finishing its round or reporting the next round settles the due bot votes and the deadline, so
the answer does not depend on a worker having run the timed tasks (none run here)."""

from unittest import mock

from matches.live_vote import tasks
from tests.matches.live_vote.conftest import at, iso


def test_reading_a_vote_past_its_deadline_resolves_it(clock, table):
    table.open_vote()
    clock.move_to(at(4))
    table.vote(2, "bavan")
    clock.move_to(at(45))

    state = table.state()

    assert (state["status"], state["resolved_at"]) == ("go", iso(at(30)))


def test_reading_a_vote_casts_the_due_bot_vote(clock, seat_table):
    table = seat_table(bots=(2,))
    table.open_vote()
    clock.move_to(at(1.999))
    assert table.state()["votes"] == {}
    clock.move_to(at(2))

    votes = table.state()["votes"]

    assert votes["2"]["vote"] == "bavan"
    assert votes["2"]["bot"] is True


def test_two_bots_with_unknown_hands_stop_once_read(clock, seat_table):
    table = seat_table(bots=(0, 2))
    table.open_vote()
    clock.move_to(at(3))

    state = table.state()

    assert state["status"] == "refused"
    assert table.match()["rounds"][0]["outcome"] == "kort"


def test_the_next_round_is_taken_once_a_silent_vote_has_expired(clock, seat_table):
    table = seat_table(mode="room")
    table.open_vote()
    clock.move_to(at(31))

    # Both silent: refused at the deadline, the Kort counts (+5 to team A); the caller's
    # partner, seat 2, calls next (KORT_RULES §5).
    reported = table.report(2, 7, 3)

    assert reported.status_code == 201, reported.data
    rounds = table.match()["rounds"]
    assert [r["outcome"] for r in rounds] == ["kort", "win"]


def test_a_late_vote_counts_the_bot_vote_that_was_due_first(clock, seat_table):
    # Seat 2 is a bot beside a silent human: its bavan (due at 2 s) and silence go (§4), even
    # when nothing ran the timed tasks before the human's late vote arrives.
    table = seat_table(bots=(2,))
    table.open_vote()
    clock.move_to(at(35))

    late = table.vote(0, "stop")

    assert late.status_code == 409, late.data
    assert "resolved as 'go'" in late.data["vote"][0]
    state = table.state()
    assert (state["status"], state["votes"]["2"]["vote"]) == ("go", "bavan")


def test_a_bot_vote_cast_late_is_stamped_when_it_was_due(clock, seat_table):
    # No task ran: read at 3.5 s, the bot's bavan carries 2 s, as a worker on time stamps it.
    table = seat_table(bots=(2,))
    table.open_vote()
    clock.move_to(at(3.5))

    assert table.state()["votes"] == {"2": {"vote": "bavan", "at": iso(at(2)), "bot": True}}


def test_two_bots_settled_late_stop_at_2_s(clock, seat_table):
    table = seat_table(bots=(0, 2))
    table.open_vote()
    clock.move_to(at(6))

    state = table.state()

    assert (state["status"], state["resolved_at"]) == ("refused", iso(at(2)))
    assert [v["at"] for v in state["votes"].values()] == [iso(at(2))]


def test_the_bot_of_a_seat_left_later_votes_from_then_after_the_bot_due_first(clock, seat_table):
    # Seat 2 is a bot from the start (due at 2 s); seat 0 leaves at 5 s, its bot due then. No
    # task ran: read at 9 s, both bots vote stop (unknown hands), and the first due, seat 2's
    # at 2 s, refuses; seat 0's bot has nothing left to vote on.
    table = seat_table(bots=(2,))
    table.open_vote()
    clock.move_to(at(5))
    with mock.patch.object(tasks.cast_bot_votes, "apply_async"):
        assert table.leave(0).status_code == 200
    clock.move_to(at(9))

    state = table.state()

    assert (state["status"], state["resolved_at"]) == ("refused", iso(at(2)))
    assert state["votes"] == {"2": {"vote": "stop", "at": iso(at(2)), "bot": True}}

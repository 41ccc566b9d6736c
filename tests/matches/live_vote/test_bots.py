"""Bots and players who left vote 2 s after the vote starts (KORT_RULES §4, §9): beside a human
partner a bot votes ``bavan``; two bots vote ``bavan`` only for a guaranteed Bavan (§6), which
a round in summary form never is (its hands are unknown)."""

from unittest import mock

from matches.live_vote import tasks
from tests.matches.live_vote.conftest import at, iso


def test_a_bot_beside_a_human_votes_bavan_at_2_s(clock, seat_table, run_task):
    table = seat_table(bots=(2,))
    table.open_vote(trump_seat=0)
    # The bot task queued at the opening ran at once in-process: too early, no vote yet.
    assert table.state()["votes"] == {}
    clock.move_to(at(1.999))
    assert run_task(tasks.cast_bot_votes, table.vote_id()) == 0
    clock.move_to(at(2))

    assert run_task(tasks.cast_bot_votes, table.vote_id()) == 1

    state = table.state()
    assert state["votes"] == {"2": {"vote": "bavan", "at": iso(at(2)), "bot": True}}
    assert state["status"] == "open"
    # The human partner stays silent: one bavan and silence go once past the deadline (§4).
    clock.move_to(at(30.001))
    run_task(tasks.expire_bavan_vote, table.vote_id())
    assert table.state()["status"] == "go"


def test_the_human_partner_still_decides_after_the_bot(clock, seat_table, run_task):
    table = seat_table(bots=(0,))
    table.open_vote(trump_seat=0)
    clock.move_to(at(2))
    run_task(tasks.cast_bot_votes, table.vote_id())
    clock.move_to(at(7))

    stopped = table.vote(2, "stop")

    assert (stopped.data["status"], stopped.data["resolved_at"]) == ("refused", iso(at(7)))
    assert table.match()["rounds"][0]["outcome"] == "kort"


def test_two_bots_with_unknown_hands_vote_stop_and_the_kort_counts(clock, seat_table, run_task):
    table = seat_table(bots=(1, 3), mode="room")
    table.open_vote(trump_seat=0, a=0, b=7)
    clock.move_to(at(2))

    assert run_task(tasks.cast_bot_votes, table.vote_id()) == 1

    state = table.state()
    # The first bot's stop refuses at once; its partner has nothing left to vote on.
    assert state["votes"] == {"1": {"vote": "stop", "at": iso(at(2)), "bot": True}}
    assert (state["status"], state["resolved_at"]) == ("refused", iso(at(2)))
    match = table.match()
    assert match["rounds"][0]["outcome"] == "at_kort"
    assert match["wins"] == {"A": 0, "B": 7}


def test_the_bot_task_runs_twice_without_a_second_vote(clock, seat_table, run_task):
    table = seat_table(bots=(2,))
    table.open_vote()
    clock.move_to(at(2))
    run_task(tasks.cast_bot_votes, table.vote_id())
    clock.move_to(at(3))

    assert run_task(tasks.cast_bot_votes, table.vote_id()) == 0

    assert table.state()["votes"]["2"]["at"] == iso(at(2))


def test_a_bot_task_after_the_deadline_resolves_the_vote(clock, seat_table, run_task):
    table = seat_table(bots=(2,))
    table.open_vote()
    clock.move_to(at(40))

    assert run_task(tasks.cast_bot_votes, table.vote_id()) == 0

    assert table.state()["status"] == "refused"


def test_a_player_who_left_during_the_vote_gets_a_bot_vote_at_once(clock, table):
    table.open_vote(trump_seat=0)
    clock.move_to(at(5))

    left = table.leave(2)

    assert left.status_code == 200, left.data
    assert (left.data["seat"], left.data["left_at"]) == (2, iso(at(5)))
    # Their partner at seat 0 is human: the bot votes bavan, at max(now, 2 s) = 5 s.
    assert table.state()["votes"] == {"2": {"vote": "bavan", "at": iso(at(5)), "bot": True}}
    assert table.vote(2, "stop").status_code == 403


def test_a_player_who_left_before_2_s_gets_the_bot_vote_at_2_s(clock, table, run_task):
    table.open_vote(trump_seat=0)
    clock.move_to(at(0.5))
    with mock.patch.object(tasks.cast_bot_votes, "apply_async") as bot_task:
        table.leave(0)
    bot_task.assert_called_once_with((table.vote_id(),), eta=at(2))
    clock.move_to(at(2))

    run_task(tasks.cast_bot_votes, table.vote_id())

    assert table.state()["votes"] == {"0": {"vote": "bavan", "at": iso(at(2)), "bot": True}}


def test_when_both_voters_left_they_vote_stop(clock, table, run_task):
    table.open_vote(trump_seat=0, a=0, b=7)
    table.leave(1)
    table.leave(3)
    clock.move_to(at(2))

    run_task(tasks.cast_bot_votes, table.vote_id())

    assert table.state()["status"] == "refused"
    assert table.match()["rounds"][0]["outcome"] == "at_kort"


def test_a_voter_who_already_voted_gets_no_bot_vote_on_leaving(clock, table):
    table.open_vote()
    table.vote(2, "bavan")
    clock.move_to(at(4))
    with mock.patch.object(tasks.cast_bot_votes, "apply_async") as bot_task:
        table.leave(2)

    bot_task.assert_not_called()
    assert table.state()["votes"]["2"]["bot"] is False


def test_leaving_outside_a_vote_queues_no_bot_vote(clock, table):
    with mock.patch.object(tasks.cast_bot_votes, "apply_async") as bot_task:
        assert table.leave(3).status_code == 200
        table.open_vote(trump_seat=0)
        assert table.leave(1).status_code == 200

    # Seat 3 left before the vote: it is a bot of the opposing team, which casts no vote.
    bot_task.assert_not_called()


def test_leaving_twice_keeps_the_first_departure(clock, table):
    table.leave(2)
    clock.move_to(at(9))

    again = table.leave(2)

    assert (again.status_code, again.data["left_at"]) == (200, iso(at(0)))


def test_leaving_needs_a_service_key_and_a_real_seat(clock, table):
    assert table.api.post(f"{table.url}seats/2/leave/").status_code == 401
    assert table.player(2).post(f"{table.url}seats/2/leave/").status_code == 403
    assert table.leave(4).status_code == 404
    assert table.service.post("/api/v1/matches/987654/seats/0/leave/").status_code == 404


def test_nobody_leaves_a_match_that_is_over(clock, table):
    table.open_vote()
    table.vote(0, "stop")

    assert table.leave(1).status_code == 409


def test_two_bots_vote_bavan_when_the_bavan_is_guaranteed(clock, seat_table, run_task):
    table = seat_table(bots=(0, 2))
    table.open_vote(trump_seat=0)
    clock.move_to(at(2))

    with mock.patch("matches.live_vote.services.bavan_guaranteed_for", return_value=True):
        assert run_task(tasks.cast_bot_votes, table.vote_id()) == 2

    state = table.state()
    assert (state["status"], state["resolved_at"]) == ("go", iso(at(2)))
    assert {seat: v["vote"] for seat, v in state["votes"].items()} == {"0": "bavan", "2": "bavan"}


def test_a_missing_seat_and_a_missing_match_are_told_apart(clock, table):
    no_seat = table.leave(4)
    assert (no_seat.status_code, no_seat.data["detail"]) == (
        404,
        f"match {table.match_id} has no seat 4",
    )
    no_match = table.service.post("/api/v1/matches/987654/seats/0/leave/")
    assert (no_match.status_code, no_match.data["detail"]) == (404, "no such match")

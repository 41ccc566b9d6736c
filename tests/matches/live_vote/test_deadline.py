"""The deadline task (KORT_RULES §4 table: silence at the deadline). The task runs in-process
at the moment the tests move the clock to."""

from matches.live_vote import tasks
from matches.models import Round
from tests.matches.live_vote.conftest import at, iso


def test_before_the_deadline_the_task_does_nothing(clock, table, run_task):
    table.open_vote()
    clock.move_to(at(29.999))

    assert run_task(tasks.expire_bavan_vote, table.vote_id()) is False

    assert table.state()["status"] == "open"


def test_at_exactly_the_deadline_the_task_does_nothing_and_a_vote_still_counts(
    clock, table, run_task
):
    table.open_vote()
    clock.move_to(at(30))

    assert run_task(tasks.expire_bavan_vote, table.vote_id()) is False
    assert table.state()["status"] == "open"
    # One boundary everywhere (§4): a vote at exactly 30 000 ms is in time.
    voted = table.vote(0, "stop")

    assert voted.status_code == 201, voted.data
    assert (voted.data["status"], voted.data["resolved_at"]) == ("refused", iso(at(30)))


def test_one_bavan_and_a_silent_partner_go_once_past_the_deadline(clock, table, run_task):
    table.open_vote()
    clock.move_to(at(4))
    table.vote(2, "bavan")
    clock.move_to(at(30.001))

    assert run_task(tasks.expire_bavan_vote, table.vote_id()) is True

    state = table.state()
    assert (state["status"], state["resolved_at"]) == ("go", iso(at(30)))
    played = table.match()["rounds"][0]
    assert (played["status"], played["bavan"]) == ("bavan", "go")


def test_two_silent_voters_refuse_at_the_deadline_and_the_round_is_a_kort(clock, table, run_task):
    table.open_vote()
    clock.move_to(at(30.5))

    assert run_task(tasks.expire_bavan_vote, table.vote_id()) is True

    state = table.state()
    assert (state["status"], state["resolved_at"]) == ("refused", iso(at(30)))
    match = table.match()
    assert match["rounds"][0]["outcome"] == "kort"
    assert (match["wins"], match["status"]) == ({"A": 5, "B": 0}, "finalized")


def test_the_task_does_nothing_once_the_vote_is_resolved(clock, table, run_task):
    table.open_vote()
    table.vote(0, "stop")
    clock.move_to(at(31))

    assert run_task(tasks.expire_bavan_vote, table.vote_id()) is False
    assert run_task(tasks.expire_bavan_vote, table.vote_id()) is False

    assert table.match()["wins"] == {"A": 5, "B": 0}
    assert Round.objects.get().outcome == "kort"


def test_the_task_for_an_unknown_vote_does_nothing(db):
    assert tasks.expire_bavan_vote(987654) is False
    assert tasks.cast_bot_votes(987654) == 0

"""Opening a live Bavan vote by a round report at 7:0 (KORT_RULES §4; API.md "Live Bavan vote"),
and the match taking no other round while that round is open."""

from unittest import mock

import pytest

from matches.live_vote import tasks
from matches.live_vote.models import BavanVote
from matches.models import Round
from tests.matches.live_vote.conftest import T0, at, iso


def test_a_7_0_reported_with_vote_is_stored_voting_and_opens_the_vote(clock, table):
    opened = table.open_vote(trump_seat=0, a=7, b=0, number=1)

    assert opened.data["number"] == 1
    assert opened.data["status"] == "voting"
    assert (opened.data["outcome"], opened.data["winner"], opened.data["wins_awarded"]) == (
        None,
        None,
        None,
    )
    # 30 s from the opening (§4); team A reached 7:0, so seats 0 and 2 vote.
    assert opened.data["vote"] == {
        "status": "open",
        "team": "A",
        "opened_at": iso(T0),
        "deadline": iso(at(30)),
        "resolved_at": None,
        "votes": {},
        "revealed_hands": None,
    }
    assert opened.data["next_trump_seat"] == 0
    match = table.match()
    assert match["wins"] == {"A": 0, "B": 0}
    assert len(match["rounds"]) == 1
    listed = match["rounds"][0]
    assert (listed["status"], listed["outcome"], listed["winner"], listed["wins_awarded"]) == (
        "voting",
        None,
        None,
        None,
    )


def test_the_defenders_at_7_0_are_the_voting_team(clock, table):
    opened = table.open_vote(trump_seat=0, a=0, b=7)

    assert opened.data["vote"]["team"] == "B"
    assert table.state()["team"] == "B"


@pytest.mark.parametrize(("a", "b"), [(7, 3), (3, 7), (7, 1), (13, 0), (0, 0), (8, 0)])
def test_vote_on_anything_but_7_0_is_a_400_naming_bavan(table, a, b):
    refused = table.report(0, a, b, "vote")

    assert refused.status_code == 400, refused.data
    assert "7:0" in refused.data["bavan"][0]
    assert not Round.objects.exists()
    assert not BavanVote.objects.exists()


def test_a_live_vote_with_reported_votes_is_a_400_naming_bavan_votes(table):
    refused = table.report(0, 7, 0, "vote", bavan_votes=[{"seat": 0, "vote": "stop", "at_ms": 5}])

    assert refused.status_code == 400
    assert list(refused.data) == ["bavan_votes"]
    assert not Round.objects.exists()


def test_a_7_0_with_no_bavan_stays_a_400(table):
    assert table.report(0, 7, 0).status_code == 400


def test_while_the_vote_is_open_no_other_round_is_taken(clock, table):
    table.open_vote()

    refused = table.report(0, 7, 2)

    assert refused.status_code == 409
    assert "round 1" in refused.data["round"][0]
    assert table.report(0, 7, 2, number=2).status_code == 409
    assert len(table.match()["rounds"]) == 1


def test_while_a_round_awaits_its_bavan_finish_no_other_round_is_taken(clock, table):
    table.open_vote()
    table.vote(0, "bavan")
    table.vote(2, "bavan")

    refused = table.report(0, 7, 2)

    assert refused.status_code == 409
    assert "round 1" in refused.data["round"][0]


def test_a_resend_of_the_opening_returns_the_stored_round(clock, table):
    first = table.open_vote(number=1)
    clock.move_to(at(3))

    again = table.report(0, 7, 0, "vote", number=1)

    assert again.status_code == 200
    assert again.data["status"] == "voting"
    assert again.data["vote"] == first.data["vote"]
    assert BavanVote.objects.count() == 1


def test_the_same_number_with_another_body_is_a_409(clock, table):
    table.open_vote(number=1)

    assert table.report(0, 0, 7, "vote", number=1).status_code == 409


def test_opening_queues_the_deadline_task_just_past_the_deadline(clock, table, settings):
    settings.KORT_BAVAN_VOTE_SECONDS = 12
    with (
        mock.patch.object(tasks.expire_bavan_vote, "apply_async") as deadline_task,
        mock.patch.object(tasks.cast_bot_votes, "apply_async") as bot_task,
    ):
        table.open_vote()

    # The first millisecond past the deadline: a vote at the deadline itself counts (§4).
    deadline_task.assert_called_once_with((table.vote_id(),), eta=at(12.001))
    assert table.state()["deadline"] == iso(at(12))
    # Four humans: no bot votes to cast.
    bot_task.assert_not_called()


def test_opening_with_a_bot_voter_queues_the_bot_votes_2_s_later(clock, seat_table):
    table = seat_table(bots=(2,))
    with mock.patch.object(tasks.cast_bot_votes, "apply_async") as bot_task:
        table.open_vote()

    bot_task.assert_called_once_with((table.vote_id(),), eta=at(2))


def test_a_bot_among_the_opponents_casts_no_vote(clock, seat_table):
    table = seat_table(bots=(1,))
    with mock.patch.object(tasks.cast_bot_votes, "apply_async") as bot_task:
        table.open_vote(a=7, b=0)

    bot_task.assert_not_called()


def test_a_match_reported_whole_may_end_on_an_open_vote(clock, service, cast):
    body = {
        "mode": "room",
        "seats": [p.id for p in cast],
        "first_trump_seat": 0,
        "rounds": [
            {"trump_seat": 0, "tricks": {"A": 7, "B": 2}},
            {"trump_seat": 0, "tricks": {"A": 0, "B": 7}, "bavan": "vote"},
        ],
    }

    created = service.post("/api/v1/matches/", body)

    assert created.status_code == 201, created.data
    assert [r["status"] for r in created.data["rounds"]] == ["finished", "voting"]
    assert BavanVote.objects.get().team == "B"


def test_one_vote_length_for_live_and_reported_votes(clock, seat_table, settings):
    """``KORT_BAVAN_VOTE_SECONDS`` is the installation's one deadline (KORT_RULES §4: one
    boundary everywhere): a live vote lasts it, and a reported round's votes count up to it."""
    settings.KORT_BAVAN_VOTE_SECONDS = 12
    table = seat_table(mode="room")
    late = table.report(0, 7, 0, bavan_votes=[{"seat": 0, "vote": "stop", "at_ms": 12_001}])
    assert late.status_code == 400, late.data
    assert "from 0 to 12000 ms" in late.data["bavan_votes"][0]

    in_time = table.report(0, 7, 0, bavan_votes=[{"seat": 0, "vote": "stop", "at_ms": 12_000}])
    assert (in_time.status_code, in_time.data["outcome"]) == (201, "kort")

    table.open_vote(trump_seat=2)
    assert table.state(number=2)["deadline"] == iso(at(12))
    clock.move_to(at(12.001))
    assert table.state(number=2)["status"] == "refused"

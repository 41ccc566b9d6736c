"""Finishing a round that went for Bavan after its live vote (KORT_RULES §2, §3; API.md "Live
Bavan vote"). An identical resend of a finish returns the finished round (200) and changes
nothing; a finish with other tricks is a 409."""

import pytest

from tests.matches.live_vote.conftest import at


@pytest.fixture
def going(clock, table):
    """Round 1: team A (trump seat 0) at 7:0, both voters chose Bavan."""
    table.open_vote(trump_seat=0)
    table.vote(0, "bavan")
    table.vote(2, "bavan")
    return table


def test_a_bavan_made_13_0_gives_10_wins_and_its_cups(going):
    finished = going.finish(13, 0)

    assert finished.status_code == 201, finished.data
    assert (finished.data["status"], finished.data["outcome"]) == ("finished", "bavan")
    assert (finished.data["winner"], finished.data["wins_awarded"]) == ("A", 10)
    match = going.match()
    assert match["rounds"][0]["tricks"] == {"A": 13, "B": 0}
    assert match["wins"] == {"A": 10, "B": 0}
    # Bavan by the trump team: the caller's partner calls next (§5).
    assert match["next_trump_seat"] == 2
    # §7 checks: Bavan made after a Kort +15, the other team -10.
    ids = [str(p.id) for p in going.players]
    assert match["status"] == "finalized"
    assert match["cups"] == {ids[0]: 15, ids[1]: -10, ids[2]: 15, ids[3]: -10}


def test_a_bavan_failed_9_1_gives_the_opponents_5_wins(going):
    finished = going.finish(9, 1)

    assert finished.status_code == 201
    assert (finished.data["outcome"], finished.data["winner"]) == ("bavan_failed", "B")
    assert finished.data["wins_awarded"] == 5
    match = going.match()
    assert match["wins"] == {"A": 0, "B": 5}
    # The defenders won: the next seat calls (§5); §7: a failed Bavan -5, the others +10.
    assert match["next_trump_seat"] == 1
    ids = [str(p.id) for p in going.players]
    assert match["cups"] == {ids[0]: -5, ids[1]: 10, ids[2]: -5, ids[3]: 10}


def test_an_at_bavan_made_by_the_defenders(clock, seat_table):
    table = seat_table(mode="room", first_trump_seat=0)
    table.open_vote(trump_seat=0, a=0, b=7)
    table.vote(1, "bavan")
    table.vote(3, "bavan")

    finished = table.finish(0, 13)

    assert (finished.data["outcome"], finished.data["wins_awarded"]) == ("at_bavan", 13)
    assert table.match()["wins"] == {"A": 0, "B": 13}


@pytest.mark.parametrize(("a", "b"), [(7, 0), (12, 0), (13, 1), (7, 2), (1, 9), (0, 13), (8, 3)])
def test_tricks_that_do_not_end_the_bavan_are_a_400_naming_tricks(going, a, b):
    refused = going.finish(a, b)

    assert refused.status_code == 400, refused.data
    assert list(refused.data) == ["tricks"]
    played = going.match()["rounds"][0]
    assert (played["status"], played["tricks"]) == ("bavan", {"A": 7, "B": 0})


def test_an_identical_resend_returns_the_finished_round(going):
    going.finish(12, 1)

    again = going.finish(12, 1)

    assert again.status_code == 200
    assert again.data["outcome"] == "bavan_failed"
    assert going.match()["wins"] == {"A": 0, "B": 5}


def test_a_second_finish_with_other_tricks_is_a_409(going):
    going.finish(13, 0)

    refused = going.finish(12, 1)

    assert refused.status_code == 409
    assert "already finished" in refused.data["round"][0]
    assert going.match()["wins"] == {"A": 10, "B": 0}


@pytest.mark.parametrize(
    ("vote", "named"),
    [
        pytest.param("bavan", "voting", id="the vote is still open"),
        pytest.param("stop", "kort", id="the vote was refused"),
    ],
)
def test_finishing_a_round_not_going_for_bavan_is_a_409(clock, table, vote, named):
    table.open_vote()
    table.vote(0, vote)

    refused = table.finish(13, 0)

    assert refused.status_code == 409
    assert named in refused.data["round"][0]


def test_finishing_a_round_reported_whole_is_a_409(clock, table):
    table.report(0, 13, 0, "go")

    assert table.finish(13, 0).status_code == 409


def test_finishing_an_unknown_round_is_a_404(clock, table):
    assert table.finish(13, 0).status_code == 404


def test_a_finish_without_tricks_is_a_400_before_the_match_is_looked_up(clock, table):
    """The body is checked first: no tricks is a 400 naming ``tricks``, on a match that does
    not exist too (a finish that is well formed gets the 404, tested below)."""
    for url in (table.url, "/api/v1/matches/987654/"):
        refused = table.service.post(f"{url}rounds/1/finish/", {"tricks": {}})

        assert refused.status_code == 400, refused.data
        assert list(refused.data) == ["tricks"]


def test_a_finish_needs_a_service_key(going):
    body = {"tricks": {"A": 13, "B": 0}}

    assert going.api.post(f"{going.url}rounds/1/finish/", body).status_code == 401
    assert going.player(0).post(f"{going.url}rounds/1/finish/", body).status_code == 403


def test_a_finish_past_a_deadline_not_yet_run_resolves_the_vote_first(clock, table):
    table.open_vote()
    table.vote(0, "bavan")
    clock.move_to(at(45))

    finished = table.finish(13, 0)

    assert finished.status_code == 201
    assert finished.data["vote"]["status"] == "go"
    assert finished.data["outcome"] == "bavan"


def test_after_the_finish_the_next_round_is_taken(clock, seat_table):
    table = seat_table(mode="room")
    table.open_vote(trump_seat=0)
    table.vote(0, "bavan")
    table.vote(2, "bavan")
    table.finish(11, 1)

    # The trump team failed its Bavan: the defenders won, the next seat calls (§5).
    assert table.report(1, 7, 4).status_code == 201
    assert table.match()["wins"] == {"A": 1, "B": 5}


def test_a_missing_round_and_a_missing_match_are_told_apart(clock, table):
    no_round = table.finish(13, 0)
    assert (no_round.status_code, no_round.data["detail"]) == (
        404,
        f"match {table.match_id} has no round 1",
    )
    body = {"tricks": {"A": 13, "B": 0}}
    no_match = table.service.post("/api/v1/matches/987654/rounds/1/finish/", body)
    assert (no_match.status_code, no_match.data["detail"]) == (404, "no such match")

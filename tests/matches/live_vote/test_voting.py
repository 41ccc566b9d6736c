"""Players casting their Bavan votes (KORT_RULES §4 table; API.md "Live Bavan vote"): who may
vote, until when, what resolves the vote, and what a refused vote does to the match (§2, §7)."""

import pytest

from matches.live_vote.models import SeatVote
from players.services import player_create, player_token
from tests.matches.live_vote.conftest import at, iso

NOT_A_VOTER = "only the players of seats 0 and 2 (team A, at 7:0) vote on the Bavan"


def stored(table) -> tuple:
    """What a refused vote must leave as it was: the vote, the match and every stored vote."""
    return table.state(), table.match(), SeatVote.objects.count()


def assert_forbidden(refused, phrase: str) -> None:
    """A 403 in the API's error shape: one ``detail``, coded as a permission refusal, naming
    the rule."""
    assert refused.status_code == 403, refused.data
    assert list(refused.data) == ["detail"]
    assert refused.data["detail"].code == "permission_denied"
    assert phrase in refused.data["detail"]


def test_a_voter_casts_a_vote_and_gets_the_vote_state(clock, table):
    table.open_vote()
    clock.move_to(at(1.5))

    cast = table.vote(0, "bavan")

    assert cast.status_code == 201, cast.data
    assert cast.data["status"] == "open"
    assert cast.data["votes"] == {"0": {"vote": "bavan", "at": iso(at(1.5)), "bot": False}}
    assert table.state() == cast.data


@pytest.mark.parametrize("seat", [1, 3])
def test_an_opponent_may_not_vote(clock, table, seat):
    table.open_vote()
    before = stored(table)

    refused = table.vote(seat, "stop")

    assert_forbidden(refused, NOT_A_VOTER)
    assert stored(table) == before
    assert before[0]["votes"] == {}


def test_a_player_from_another_table_may_not_vote(clock, table):
    table.open_vote()
    stranger = player_create(username="erfan", display_name="Erfan")
    before = stored(table)

    refused = table.api.as_player(player_token(stranger).key).post(
        f"{table.url}rounds/1/vote/", {"vote": "stop"}
    )

    assert_forbidden(refused, NOT_A_VOTER)
    assert stored(table) == before


def test_a_vote_needs_a_player_token(clock, table):
    table.open_vote()
    before = stored(table)

    assert table.api.post(f"{table.url}rounds/1/vote/", {"vote": "stop"}).status_code == 401
    by_service = table.service.post(f"{table.url}rounds/1/vote/", {"vote": "stop"})
    assert_forbidden(by_service, "a player token is required")
    assert stored(table) == before
    assert before[0]["votes"] == {}


@pytest.mark.parametrize("body", [{}, {"vote": "go"}, {"vote": None}, {"vote": ["stop"]}])
def test_a_bad_body_is_a_400_naming_vote(clock, table, body):
    table.open_vote()

    refused = table.player(0).post(f"{table.url}rounds/1/vote/", body)

    assert refused.status_code == 400
    assert list(refused.data) == ["vote"]


def test_a_round_with_no_vote_is_a_404(clock, table):
    assert table.report(0, 7, 2).status_code == 201

    assert table.vote(0, "stop").status_code == 404
    assert table.api.get(f"{table.url}rounds/1/vote/").status_code == 404
    assert table.vote(0, "stop", number=2).status_code == 404


@pytest.mark.parametrize("second", ["bavan", "stop"])
def test_a_vote_cannot_be_changed(clock, table, second):
    table.open_vote()
    table.vote(0, "bavan")
    clock.move_to(at(4))

    refused = table.vote(0, second)

    assert refused.status_code == 409
    assert "already voted" in refused.data["vote"][0]
    assert table.state()["votes"]["0"]["vote"] == "bavan"


def test_a_stop_refuses_at_once_and_the_round_counts_as_a_kort(clock, table):
    table.open_vote(trump_seat=0)
    clock.move_to(at(3))

    stopped = table.vote(2, "stop")

    assert stopped.status_code == 201
    assert (stopped.data["status"], stopped.data["resolved_at"]) == ("refused", iso(at(3)))
    match = table.match()
    played = match["rounds"][0]
    assert (played["status"], played["outcome"], played["winner"]) == ("finished", "kort", "A")
    assert (played["bavan"], played["wins_awarded"]) == ("stop", 5)
    # Kort: the trump team +5 wins ends a ranked match; the caller's partner calls next (§5).
    assert match["wins"] == {"A": 5, "B": 0}
    assert match["next_trump_seat"] == 2
    # Finalized on commit; the §7 checks: stop after a Kort is +10, the other team -5.
    ids = [str(p.id) for p in table.players]
    assert match["status"] == "finalized"
    assert match["cups"] == {ids[0]: 10, ids[1]: -5, ids[2]: 10, ids[3]: -5}


def test_a_stop_after_an_at_kort_gives_the_defenders_7_wins(clock, seat_table):
    table = seat_table(first_trump_seat=1)
    table.open_vote(trump_seat=1, a=7, b=0)

    table.vote(0, "stop")

    match = table.match()
    assert match["rounds"][0]["outcome"] == "at_kort"
    assert match["wins"] == {"A": 7, "B": 0}
    # The defenders won: the next seat calls (§5); §7: +12 after an At-kort, the others -7.
    assert match["next_trump_seat"] == 2
    ids = [str(p.id) for p in table.players]
    assert match["cups"] == {ids[0]: 12, ids[1]: -7, ids[2]: 12, ids[3]: -7}


def test_a_vote_after_a_stop_is_a_409(clock, table):
    table.open_vote()
    table.vote(0, "stop")
    clock.move_to(at(2))

    refused = table.vote(2, "bavan")

    assert refused.status_code == 409
    assert "refused" in refused.data["vote"][0]
    assert table.state()["votes"].keys() == {"0"}


@pytest.mark.parametrize(
    ("first", "second", "second_at", "status"),
    [
        pytest.param("bavan", "bavan", 6, "go", id="two bavans go at the second"),
        pytest.param("bavan", "stop", 30, "refused", id="a vote at exactly the deadline counts"),
    ],
)
def test_the_deciding_vote_resolves_the_vote_at_its_moment(
    clock, table, first, second, second_at, status
):
    table.open_vote()
    clock.move_to(at(1))
    table.vote(2, first)
    clock.move_to(at(second_at))

    decided = table.vote(0, second)

    assert decided.status_code == 201
    assert (decided.data["status"], decided.data["resolved_at"]) == (status, iso(at(second_at)))


def test_after_go_the_round_awaits_its_finish_and_takes_no_more_votes(clock, table):
    table.open_vote()
    table.vote(2, "bavan")
    table.vote(0, "bavan")

    played = table.match()["rounds"][0]
    assert (played["status"], played["bavan"], played["outcome"]) == ("bavan", "go", None)
    assert table.match()["wins"] == {"A": 0, "B": 0}
    before = stored(table)
    assert_forbidden(table.vote(1, "stop"), NOT_A_VOTER)
    assert table.vote(0, "stop").status_code == 409
    assert stored(table) == before


def test_a_vote_past_the_deadline_resolves_the_vote_first_then_is_a_409(clock, table):
    table.open_vote()
    clock.move_to(at(10))
    table.vote(0, "bavan")
    clock.move_to(at(30.001))

    late = table.vote(2, "stop")

    assert late.status_code == 409
    assert "deadline" in late.data["vote"][0]
    # One bavan and a silent partner: go, resolved at the deadline (§4).
    state = table.state()
    assert (state["status"], state["resolved_at"]) == ("go", iso(at(30)))
    assert state["votes"].keys() == {"0"}
    assert table.match()["rounds"][0]["status"] == "bavan"


def test_a_vote_past_the_deadline_of_a_silent_vote_finishes_the_kort(clock, table):
    table.open_vote()
    clock.move_to(at(31))

    assert table.vote(2, "bavan").status_code == 409

    assert table.state()["status"] == "refused"
    assert table.match()["rounds"][0]["outcome"] == "kort"

"""Two bots vote on a Bavan by the search (KORT_RULES §4, §6) when the vote was opened with the
record of the first 7 tricks, so the team's hands are known."""

import pytest

from tests.matches.kort.test_vote_position import EXPOSED, TROP_AT_SEVEN
from tests.matches.live_vote.conftest import at


@pytest.mark.parametrize(
    ("record", "decision", "votes"),
    [
        pytest.param(TROP_AT_SEVEN, "go", "bavan", id="guaranteed"),
        pytest.param(EXPOSED, "refused", "stop", id="not-guaranteed"),
    ],
)
def test_two_bots_follow_the_search(clock, seat_table, record, decision, votes):
    table = seat_table(bots=(0, 2), mode="room")
    table.open_vote(trump_seat=0, play=record)
    clock.move_to(at(2))

    state = table.state()

    assert state["status"] == decision
    assert {vote["vote"] for vote in state["votes"].values()} == {votes}

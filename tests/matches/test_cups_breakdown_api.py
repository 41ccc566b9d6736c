"""Match cups explained (API.md "Match cups explained and voided matches"; KORT_RULES §7): every
cell of the §7 table through the API, the breakdown summing to the cups the ledger applied."""

import pytest

from tests.api_steps import ids_of, match_play, match_read, round_body

TABLE = [
    # §7: a ranked match at 0:0 whose first round is a 7:0; the report, the 7:0 team's cups,
    # the other team's, and the 7:0 team's breakdown (rounds, match bonus, sweep bonus).
    pytest.param(round_body(0, 7, 0, "stop"), 10, -5, ([5], 2, 3), id="kort-stop"),
    pytest.param(round_body(1, 7, 0, "stop"), 12, -7, ([7], 2, 3), id="at_kort-stop"),
    pytest.param(round_body(0, 13, 0, "go"), 15, -10, ([10], 2, 3), id="kort-bavan-made"),
    pytest.param(round_body(1, 13, 0, "go"), 18, -13, ([13], 2, 3), id="at_kort-bavan-made"),
    pytest.param(round_body(0, 9, 1, "go"), -5, 10, ([-5], 0, 0), id="kort-bavan-failed"),
    pytest.param(round_body(1, 12, 1, "go"), -5, 10, ([-5], 0, 0), id="at_kort-bavan-failed"),
]


def team_of_seat(seat: int) -> str:
    return "A" if seat % 2 == 0 else "B"


@pytest.mark.parametrize("swapped", [False, True], ids=["A-7:0", "B-7:0"])
@pytest.mark.parametrize(("report", "shutout_cups", "other_cups", "explained"), TABLE)
def test_every_cell_of_the_cups_table(
    service, api, cast, report, shutout_cups, other_cups, explained, swapped
):
    if swapped:  # the same round for team B: B has the tricks, the caller moves one seat on
        tricks = report["tricks"]
        report = {**report, "trump_seat": report["trump_seat"] + 1}
        report["tricks"] = {"A": tricks["B"], "B": tricks["A"]}
    seats = ids_of(cast)
    match_id = match_play(service, seats, [report], first_trump_seat=report["trump_seat"])

    match = match_read(api, match_id)

    shutout = "B" if swapped else "A"
    other = "A" if swapped else "B"
    breakdown = match["cups_breakdown"]
    rounds, match_bonus, sweep_bonus = explained
    assert breakdown[shutout] == {
        "rounds": rounds,
        "match_bonus": match_bonus,
        "sweep_bonus": sweep_bonus,
        "total": shutout_cups,
    }
    assert breakdown[other]["total"] == other_cups
    for team in "AB":
        cell = breakdown[team]
        assert sum(cell["rounds"]) + cell["match_bonus"] + cell["sweep_bonus"] == cell["total"]
    for seat, player_id in enumerate(seats):
        assert match["cups"][str(player_id)] == breakdown[team_of_seat(seat)]["total"]


def test_a_longer_match_is_explained_round_by_round(service, api, cast):
    rounds = [round_body(0, 7, 2), round_body(0, 2, 7), round_body(1, 7, 3), round_body(2, 7, 1)]
    match = match_read(api, match_play(service, ids_of(cast), rounds))

    assert match["cups_breakdown"] == {
        "A": {"rounds": [1, -1, 1, 1], "match_bonus": 2, "sweep_bonus": 0, "total": 4},
        "B": {"rounds": [-1, 1, -1, -1], "match_bonus": 0, "sweep_bonus": 0, "total": -2},
    }


def test_no_breakdown_before_finalization_or_for_a_room_match(service, api, cast, monkeypatch):
    room = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")], mode="room")
    assert match_read(api, room)["cups_breakdown"] is None

    monkeypatch.setattr("matches.rounds.queue_on_commit", lambda *args, **kwargs: None)
    completed = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    match = match_read(api, completed)
    assert (match["status"], match["cups"], match["cups_breakdown"]) == ("completed", None, None)

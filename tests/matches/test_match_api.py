"""Matches through the API (API.md "Matches"): the §7 cups table for either team, whole matches,
the §5 trump caller, idempotent creation by ``external_id``, and the schema endpoints.

Every expected number is worked out by hand from KORT_RULES in the comments.
"""

import pytest
from rest_framework_api_key.models import APIKey

from matches.models import Match
from tests.api_steps import (
    MATCHES,
    ids_of,
    match_read,
    match_start,
    player_read,
    round_body,
    rounds_report,
    team_cups,
)

# --- KORT_RULES §7: a ranked match at 0:0 whose first round is a 7:0 -------------------------

FIRST_ROUND_SHUTOUTS = [
    # first caller, tricks A:B, decision, outcome, round winner, cups of team A, cups of team B.
    # Any 7:0 outcome gives at least 5 wins, so the round ends the match with the losers at 0:
    # winners get v + 2 + 3, losers -v (v = the round's match wins, §2).
    pytest.param(0, 7, 0, "stop", "kort", "A", +10, -5, id="A-kort-stop"),
    pytest.param(1, 7, 0, "stop", "at_kort", "A", +12, -7, id="A-at_kort-stop"),
    pytest.param(2, 13, 0, "go", "bavan", "A", +15, -10, id="A-bavan-made"),
    pytest.param(3, 13, 0, "go", "at_bavan", "A", +18, -13, id="A-at_bavan-made"),
    pytest.param(0, 9, 1, "go", "bavan_failed", "B", -5, +10, id="A-bavan-failed-after-kort"),
    pytest.param(1, 12, 1, "go", "bavan_failed", "B", -5, +10, id="A-bavan-failed-after-at_kort"),
    pytest.param(1, 0, 7, "stop", "kort", "B", -5, +10, id="B-kort-stop"),
    pytest.param(2, 0, 7, "stop", "at_kort", "B", -7, +12, id="B-at_kort-stop"),
    pytest.param(3, 0, 13, "go", "bavan", "B", -10, +15, id="B-bavan-made"),
    pytest.param(0, 0, 13, "go", "at_bavan", "B", -13, +18, id="B-at_bavan-made"),
    pytest.param(3, 1, 7, "go", "bavan_failed", "A", +10, -5, id="B-bavan-failed-after-kort"),
    pytest.param(2, 1, 10, "go", "bavan_failed", "A", +10, -5, id="B-bavan-failed-after-at_kort"),
]


@pytest.mark.parametrize(
    ("caller", "tricks_a", "tricks_b", "bavan", "outcome", "winner", "cups_a", "cups_b"),
    FIRST_ROUND_SHUTOUTS,
)
def test_first_round_shutout_gives_the_cups_of_the_section_7_table(
    service, api, cast, caller, tricks_a, tricks_b, bavan, outcome, winner, cups_a, cups_b
):
    seats = ids_of(cast)
    match_id = match_start(service, seats, first_trump_seat=caller)
    (answer,) = rounds_report(service, match_id, [round_body(caller, tricks_a, tricks_b, bavan)])
    assert (answer["outcome"], answer["winner"]) == (outcome, winner)

    match = match_read(api, match_id)
    assert match["status"] == "finalized"
    assert match["winner"] == winner
    assert match["cups"] == team_cups(seats, cups_a, cups_b)
    assert [player_read(api, pid)["cups"] for pid in seats] == [cups_a, cups_b, cups_a, cups_b]


@pytest.mark.parametrize(
    ("caller", "tricks_a", "tricks_b", "wins", "cups_a", "cups_b"),
    [
        # 3 rounds of 1 win each, the losers on 0: 3 + 2 + 3 = +8 and -3.
        pytest.param(0, 7, 3, {"A": 3, "B": 0}, +8, -3, id="A-sweeps"),
        # B calls from seat 1 and keeps winning, so seat 1 calls every round (§5).
        pytest.param(1, 6, 7, {"A": 0, "B": 3}, -3, +8, id="B-sweeps"),
    ],
)
def test_ranked_three_nil_by_plain_wins(
    service, api, cast, caller, tricks_a, tricks_b, wins, cups_a, cups_b
):
    seats = ids_of(cast)
    match_id = match_start(service, seats, first_trump_seat=caller)
    plain_win = round_body(caller, tricks_a, tricks_b)
    answers = rounds_report(service, match_id, [plain_win] * 3)

    assert [a["outcome"] for a in answers] == ["win"] * 3
    assert [a["next_trump_seat"] for a in answers] == [caller] * 3
    match = match_read(api, match_id)
    assert match["status"] == "finalized"
    assert match["wins"] == wins
    assert match["cups"] == team_cups(seats, cups_a, cups_b)


def test_ranked_three_two_follows_the_trump_caller_and_sums_the_cups(service, api, cast):
    seats = ids_of(cast)
    match_id = match_start(service, seats, first_trump_seat=0)
    rounds = [
        round_body(0, 7, 3),  # A (trump) wins: A 1:0; same caller 0
        round_body(0, 4, 7),  # B (defenders) win: 1:1; next caller 0 + 1 = 1
        round_body(1, 2, 7),  # B (trump) wins: 1:2; same caller 1
        round_body(1, 7, 5),  # A (defenders) win: 2:2; next caller 2
        round_body(2, 6, 7),  # B (defenders) win: 2:3, B reaches 3; next caller would be 3
    ]
    answers = rounds_report(service, match_id, rounds)

    assert [a["next_trump_seat"] for a in answers] == [0, 1, 1, 2, 3]
    match = match_read(api, match_id)
    assert (match["status"], match["winner"], match["wins"]) == ("finalized", "B", {"A": 2, "B": 3})
    assert [r["trump_seat"] for r in match["rounds"]] == [0, 0, 1, 1, 2]
    # A: +1 -1 -1 +1 -1 = -1, no bonus. B: -1 +1 +1 -1 +1 = +1, +2 for winning the match; no
    # +3, A ended with 2 wins.
    assert match["cups"] == team_cups(seats, -1, +3)


TRUMP_CALLER_RUNS = [
    pytest.param(
        1,
        [
            # report, outcome, next caller (§5)
            (round_body(1, 0, 7, "stop"), "kort", 3),  # B's Kort: the caller's partner
            (round_body(3, 7, 2), "win", 0),  # the defenders won: 3 + 1
            (round_body(0, 7, 0, "stop"), "kort", 2),  # A's Kort: the partner
            (round_body(2, 3, 7), "win", 3),  # the defenders won: 2 + 1
            (round_body(3, 7, 0, "stop"), "at_kort", 0),  # defenders' At-kort: 3 + 1 mod 4
        ],
        id="kort-partner-and-defenders-next-seat",
    ),
    pytest.param(
        2,
        [
            (round_body(2, 7, 4), "win", 2),  # the trump team won: the same caller
            (round_body(2, 1, 8, "go"), "bavan_failed", 2),  # the defenders' Bavan failed
            (round_body(2, 10, 1, "go"), "bavan_failed", 3),  # the trump team's Bavan failed
            (round_body(3, 0, 13, "go"), "bavan", 1),  # B's Bavan: the caller's partner
        ],
        id="bavan-partner-and-failed-bavans",
    ),
]


@pytest.mark.parametrize(("first_caller", "run"), TRUMP_CALLER_RUNS)
def test_trump_caller_follows_section_5(service, api, cast, first_caller, run):
    match_id = match_start(service, ids_of(cast), mode="room", first_trump_seat=first_caller)
    answers = rounds_report(service, match_id, [report for report, _, _ in run])

    assert [(a["outcome"], a["next_trump_seat"]) for a in answers] == [
        (outcome, caller) for _, outcome, caller in run
    ]
    match = match_read(api, match_id)
    assert match["status"] == "finalized"
    assert match["cups"] is None  # room matches carry no cups (§7)


def test_whole_match_in_one_request(service, api, cast):
    seats = ids_of(cast)
    body = {
        "mode": "ranked",
        "seats": seats,
        "first_trump_seat": 1,
        # B wins a plain round (1:0), then B's Kort: 1 + 5 = 6 wins, A none.
        "rounds": [round_body(1, 3, 7), round_body(1, 0, 7, "stop")],
    }
    response = service.post(MATCHES, body)

    assert response.status_code == 201, response.data
    match = match_read(api, response.data["id"])
    assert [r["number"] for r in match["rounds"]] == [1, 2]
    assert [r["outcome"] for r in match["rounds"]] == ["win", "kort"]
    # B: 1 + 5 + 2 + 3 = +11; A: -1 - 5 = -6.
    assert match["cups"] == team_cups(seats, -6, +11)


def test_match_read_shape(service, api, cast):
    seats = ids_of(cast)
    match_id = match_start(service, seats, first_trump_seat=3)
    rounds_report(service, match_id, [round_body(3, 7, 6)])

    match = match_read(api, match_id)
    assert match["mode"] == "ranked"
    assert match["status"] == "in_progress"
    assert match["target_wins"] == 3
    assert match["seats"] == seats
    assert match["wins"] == {"A": 1, "B": 0}
    assert match["winner"] is None
    assert match["cups"] is None
    (played,) = match["rounds"]
    assert {key: played[key] for key in ("number", "trump_seat", "tricks", "outcome")} == {
        "number": 1,
        "trump_seat": 3,
        "tricks": {"A": 7, "B": 6},
        "outcome": "win",
    }
    assert (played["winner"], played["wins_awarded"]) == ("A", 1)


def test_room_match_plays_to_seven(service, api, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    # A's Kort (5 wins) does not end a room match; two plain wins make 7.
    rounds_report(service, match_id, [round_body(0, 7, 0, "stop")])
    assert match_read(api, match_id)["status"] == "in_progress"
    rounds_report(service, match_id, [round_body(2, 7, 1), round_body(2, 7, 1)])

    match = match_read(api, match_id)
    assert (match["target_wins"], match["wins"], match["status"]) == (
        7,
        {"A": 7, "B": 0},
        "finalized",
    )


# --- API.md "Conventions": creating a match is idempotent per service key --------------------


def test_same_external_id_from_the_same_key_gives_one_match(service, cast):
    body = {"mode": "ranked", "seats": ids_of(cast), "external_id": "table-17/4411"}
    first = service.post(MATCHES, body)
    second = service.post(MATCHES, body)

    assert (first.status_code, second.status_code) == (201, 200)
    assert second.data["id"] == first.data["id"]
    assert Match.objects.count() == 1


def test_same_external_id_from_another_key_gives_its_own_match(api, service, cast):
    body = {"mode": "ranked", "seats": ids_of(cast), "external_id": "table-17/4411"}
    _, other_key = APIKey.objects.create_key(name="other-game-server")
    other = api.as_service(other_key)
    mine = service.post(MATCHES, body)
    theirs = other.post(MATCHES, body)
    theirs_again = other.post(MATCHES, body)

    assert (mine.status_code, theirs.status_code, theirs_again.status_code) == (201, 201, 200)
    assert theirs.data["id"] != mine.data["id"]
    assert theirs_again.data["id"] == theirs.data["id"]
    assert Match.objects.count() == 2


# --- API.md preamble: schema and docs ---------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/"])
def test_schema_and_docs_answer(api, path):
    assert api.get(path).status_code == 200

"""Reporting rounds through the API (API.md "Matches"): decisions resolved from reported Bavan
votes (KORT_RULES §4), round ``number`` semantics and rounds after the match ended."""

import pytest

from tests.api_steps import (
    MATCHES,
    ids_of,
    match_read,
    match_start,
    round_body,
    rounds_report,
    stored_counts,
    vote,
)

VOTED_ROUNDS = [
    # caller, tricks A:B, reported votes, outcome (§4 table, then §2)
    pytest.param(
        0, 13, 0, [vote(0, "bavan", 1000), vote(2, "bavan", 2500)], "bavan", id="both-bavan"
    ),
    pytest.param(0, 13, 0, [vote(2, "bavan", 2000)], "bavan", id="one-bavan-one-silent"),
    pytest.param(
        0, 7, 0, [vote(2, "stop", 500), vote(0, "bavan", 400)], "kort", id="a-stop-refuses"
    ),
    pytest.param(0, 7, 0, [vote(0, "stop", 30_000)], "kort", id="stop-at-30000-ms-in-time"),
    pytest.param(0, 13, 0, [vote(0, "bavan", 30_000)], "bavan", id="bavan-at-30000-ms-in-time"),
    pytest.param(0, 0, 7, [vote(1, "stop", 100)], "at_kort", id="defenders-stop"),
    pytest.param(
        3, 1, 9, [vote(3, "bavan", 10), vote(1, "bavan", 20)], "bavan_failed", id="B-fails"
    ),
    # Every vote as cast: none at a 7:0 is two silent voters, a refusal (§4 table).
    pytest.param(0, 7, 0, [], "kort", id="no-votes-at-7:0-refuse"),
    # No 7:0, no vote held: an empty list says nothing.
    pytest.param(0, 7, 3, [], "win", id="no-votes-at-7:3"),
]


@pytest.mark.parametrize(("caller", "tricks_a", "tricks_b", "votes", "outcome"), VOTED_ROUNDS)
def test_votes_decide_the_bavan(service, api, cast, caller, tricks_a, tricks_b, votes, outcome):
    match_id = match_start(service, ids_of(cast), mode="room", first_trump_seat=caller)
    body = round_body(caller, tricks_a, tricks_b, bavan_votes=votes)
    (answer,) = rounds_report(service, match_id, [body])

    assert answer["outcome"] == outcome
    (stored,) = match_read(api, match_id)["rounds"]
    assert stored["bavan_votes"] == votes


def test_a_bavan_field_that_agrees_with_the_votes_is_accepted(service, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    votes = [vote(0, "bavan", 1000), vote(2, "bavan", 1500)]
    (answer,) = rounds_report(service, match_id, [round_body(0, 13, 0, "go", bavan_votes=votes)])
    assert answer["outcome"] == "bavan"


# --- round numbers (API.md "Matches": optional "number") --------------------------------------


@pytest.fixture
def started(service, cast):
    """A ranked match with round 1 (A wins 7:3, caller 0) stored."""
    match_id = match_start(service, ids_of(cast))
    rounds_report(service, match_id, [round_body(0, 7, 3)])
    return match_id


def report(service, match_id, body):
    return service.post(f"{MATCHES}{match_id}/rounds/", body)


def test_resending_a_stored_round_returns_it_unchanged(service, api, started):
    before = match_read(api, started)
    counts = stored_counts()
    response = report(service, started, {"number": 1, **round_body(0, 7, 3)})

    assert response.status_code == 200, response.data
    assert (response.data["number"], response.data["outcome"]) == (1, "win")
    assert stored_counts() == counts
    assert match_read(api, started) == before


def test_a_resend_of_an_earlier_round_answers_as_that_round_did(service, api, cast):
    """Its ``next_trump_seat`` is the caller after that round (§5), not after the latest."""
    match_id = match_start(service, ids_of(cast), mode="room")
    # A wins 7:3 (the caller keeps the trump: seat 0), then B wins 7:3 (it passes to seat 1).
    first, second = rounds_report(service, match_id, [round_body(0, 7, 3), round_body(0, 3, 7)])
    assert (first["next_trump_seat"], second["next_trump_seat"]) == (0, 1)

    again = report(service, match_id, {"number": 1, **round_body(0, 7, 3)})

    assert again.status_code == 200, again.data
    round_fields = ("number", "status", "outcome", "winner", "wins_awarded", "next_trump_seat")
    assert {f: again.data[f] for f in round_fields} == {f: first[f] for f in round_fields}
    assert again.data["match"]["next_trump_seat"] == 1


def test_resending_the_last_round_of_a_finalized_match_changes_nothing(service, api, cast):
    seats = ids_of(cast)
    match_id = match_start(service, seats)
    rounds_report(service, match_id, [round_body(0, 7, 0, "stop")])
    before = match_read(api, match_id)
    counts = stored_counts()

    response = report(service, match_id, {"number": 1, **round_body(0, 7, 0, "stop")})

    assert response.status_code == 200, response.data
    assert stored_counts() == counts
    assert match_read(api, match_id) == before
    assert before["cups"][str(seats[0])] == 10


def test_same_number_with_another_body_is_a_conflict(service, api, started):
    before = match_read(api, started)
    counts = stored_counts()
    response = report(service, started, {"number": 1, **round_body(0, 7, 4)})

    assert response.status_code == 409
    assert "already stored" in str(response.data["number"])
    assert stored_counts() == counts
    assert match_read(api, started) == before


def test_a_number_that_skips_ahead_is_rejected(service, started):
    counts = stored_counts()
    response = report(service, started, {"number": 3, **round_body(0, 7, 3)})

    assert response.status_code == 400
    assert "the next round is number 2" in str(response.data["number"])
    assert stored_counts() == counts


def test_the_next_number_is_stored(service, started):
    response = report(service, started, {"number": 2, **round_body(0, 7, 3)})
    assert (response.status_code, response.data["number"]) == (201, 2)


# --- KORT_RULES §1: a round after the match ended ---------------------------------------------


@pytest.mark.parametrize("number", [2, None], ids=["numbered", "unnumbered"])
def test_a_round_after_the_match_ended_is_a_conflict(service, api, cast, number):
    match_id = match_start(service, ids_of(cast))
    rounds_report(service, match_id, [round_body(0, 7, 0, "stop")])  # A's Kort: 5 wins, over
    counts = stored_counts()
    body = round_body(2, 7, 3) if number is None else {"number": number, **round_body(2, 7, 3)}

    response = report(service, match_id, body)

    assert response.status_code == 409
    assert "no more rounds" in str(response.data)
    assert stored_counts() == counts


def test_a_round_of_an_unknown_match_is_404(service):
    assert report(service, 999_999, round_body(0, 7, 3)).status_code == 404

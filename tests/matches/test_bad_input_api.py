"""Bad input through the API (API.md "Conventions"): a 400 whose body names the field and the
rule, nothing written, never a 500; 401 / 403 for credentials.

Each case names the field the answer must carry and a phrase of the rule it must quote.
"""

import pytest

from players.models import Player
from players.services import player_create, player_token
from tests.api_steps import (
    MATCHES,
    ids_of,
    match_start,
    round_body,
    rounds_report,
    stored_counts,
    vote,
)


def assert_rejected(response, counts_before, field, phrase, status=400):
    """The request was refused with ``status``, naming ``field`` and quoting ``phrase``, and
    wrote nothing."""
    assert response.status_code == status, response.data
    assert field in response.data, response.data
    assert phrase in str(response.data[field]), response.data
    assert stored_counts() == counts_before


ONE_ROUND = "a round ends when a team reaches 7 tricks"
BAVAN_END = "a Bavan ends at 13:0"

BAD_ROUNDS = [
    # The match's first caller is seat 0 (team A). report, field, phrase of the rule.
    pytest.param(round_body(0, 8, 3), "tricks", ONE_ROUND, id="8:3"),
    pytest.param(round_body(0, 7, 7), "tricks", ONE_ROUND, id="7:7"),
    pytest.param(round_body(0, 6, 5), "tricks", ONE_ROUND, id="6:5"),
    pytest.param(round_body(0, 0, 0), "tricks", ONE_ROUND, id="0:0"),
    pytest.param(round_body(0, -1, 7), "tricks", "greater than or equal to 0", id="negative"),
    pytest.param(round_body(0, "seven", 3), "tricks", "valid integer", id="words"),
    pytest.param({"trump_seat": 0, "tricks": {"A": 7}}, "tricks", "required", id="one-team"),
    pytest.param(round_body(0, 7, 0), "bavan", "needs the Bavan decision", id="7:0-undecided"),
    pytest.param(round_body(0, 7, 0, "vote!"), "bavan", "not a valid choice", id="bad-decision"),
    pytest.param(round_body(0, 10, 0, "go"), "tricks", BAVAN_END, id="go-10:0"),
    pytest.param(round_body(0, 7, 0, "go"), "tricks", BAVAN_END, id="go-7:0"),
    pytest.param(round_body(0, 9, 2, "go"), "tricks", BAVAN_END, id="go-9:2"),
    pytest.param(round_body(0, 13, 0), "bavan", "only by going for Bavan", id="13:0-undecided"),
    pytest.param(round_body(0, 13, 0, "stop"), "bavan", "only by going for Bavan", id="13:0-stop"),
    pytest.param(round_body(0, 7, 3, "stop"), "bavan", "only at 7:0", id="stop-at-7:3"),
    pytest.param(
        round_body(0, 7, 0, bavan_votes=[vote(1, "stop", 100)]),
        "bavan_votes",
        "only seats 0 and 2 of the 7:0 team vote",
        id="vote-by-an-opponent",
    ),
    pytest.param(
        round_body(0, 13, 0, bavan_votes=[vote(0, "bavan", 100), vote(0, "stop", 200)]),
        "bavan_votes",
        "a vote cannot be changed",
        id="changed-vote",
    ),
    pytest.param(
        round_body(0, 7, 0, bavan_votes=[vote(0, "stop", 30_001)]),
        "bavan_votes",
        "from 0 to 30000 ms",
        id="vote-at-30001-ms",
    ),
    pytest.param(
        round_body(0, 7, 0, bavan_votes=[vote(0, "stop", 100), vote(2, "bavan", 200)]),
        "bavan_votes",
        "after the vote was resolved",
        id="vote-after-resolution",
    ),
    pytest.param(
        round_body(0, 13, 0, "go", bavan_votes=[vote(2, "stop", 100)]),
        "bavan",
        "the votes resolve to 'stop'",
        id="go-against-a-stop-vote",
    ),
    pytest.param(
        round_body(0, 7, 0, "stop", bavan_votes=[vote(0, "bavan", 1), vote(2, "bavan", 2)]),
        "bavan",
        "the votes resolve to 'go'",
        id="stop-against-two-bavan-votes",
    ),
    pytest.param(
        round_body(0, 7, 3, bavan_votes=[vote(0, "stop", 100)]),
        "bavan_votes",
        "only at 7:0",
        id="votes-without-a-7:0",
    ),
    pytest.param(
        round_body(0, 7, 0, bavan_votes=[{"seat": 0, "vote": "stop"}]),
        "bavan_votes",
        "required",
        id="vote-without-time",
    ),
    pytest.param(round_body(1, 7, 3), "trump_seat", "§5", id="caller-breaks-section-5"),
    pytest.param(round_body(4, 7, 3), "trump_seat", "less than or equal to 3", id="seat-4"),
    pytest.param(round_body("x", 7, 3), "trump_seat", "valid integer", id="seat-words"),
    pytest.param({"number": 0, **round_body(0, 7, 3)}, "number", "greater than or equal to 1"),
    pytest.param({"tricks": {"A": 7, "B": 3}}, "trump_seat", "required", id="no-caller"),
]

THIRD_TEAM = {"trump_seat": 0, "tricks": {"A": 7, "B": 3, "C": 1}}


def test_tricks_of_a_third_team_are_refused(service, match_id):
    counts = stored_counts()

    response = report(service, match_id, THIRD_TEAM)

    assert_rejected(response, counts, "tricks", "not a team")
    assert list(response.data["tricks"]) == ["C"]


@pytest.fixture
def match_id(service, cast):
    """A ranked match with no rounds yet; seat 0 calls first."""
    return match_start(service, ids_of(cast), first_trump_seat=0)


def report(service, match_id, body):
    return service.post(f"{MATCHES}{match_id}/rounds/", body)


@pytest.mark.parametrize(("body", "field", "phrase"), BAD_ROUNDS)
def test_bad_round_is_rejected(service, match_id, body, field, phrase):
    counts = stored_counts()
    assert_rejected(report(service, match_id, body), counts, field, phrase)


WRONG_NEXT_CALLERS = [
    # first caller, mode, first round, the §5 caller of round 2, a caller §5 does not give
    pytest.param(0, "ranked", round_body(0, 7, 3), 0, 1, id="trump-team-won-keeps-caller"),
    pytest.param(0, "ranked", round_body(0, 3, 7), 1, 0, id="defenders-won-next-seat"),
    pytest.param(3, "ranked", round_body(3, 7, 5), 0, 2, id="defenders-won-wraps-to-0"),
    pytest.param(0, "room", round_body(0, 7, 0, "stop"), 2, 1, id="kort-goes-to-partner"),
]


@pytest.mark.parametrize(("first", "mode", "first_round", "right", "wrong"), WRONG_NEXT_CALLERS)
def test_second_caller_must_follow_section_5(service, cast, first, mode, first_round, right, wrong):
    match_id = match_start(service, ids_of(cast), mode=mode, first_trump_seat=first)
    rounds_report(service, match_id, [first_round])
    counts = stored_counts()

    response = report(service, match_id, round_body(wrong, 7, 3))

    assert_rejected(response, counts, "trump_seat", f"is seat {right}")
    assert report(service, match_id, round_body(right, 7, 3)).status_code == 201


# --- creating a match ------------------------------------------------------------------------


def seated(seat: int, player_id):
    """A change to the cast's seats: ``player_id(ids, banned_id)`` sits at ``seat``."""

    def change(ids, banned_id):
        seats = list(ids)
        seats[seat] = player_id(ids, banned_id)
        return {"seats": seats}

    return change


BAD_MATCHES = [
    # change to a good body (from the cast's ids and a banned player's id), field, phrase
    pytest.param(seated(2, lambda ids, _: ids[0]), "seats", "seated twice", id="seated-twice"),
    pytest.param(seated(1, lambda *_: 999_999), "seats", "does not exist", id="unknown-player"),
    pytest.param(seated(3, lambda _, banned: banned), "seats", "banned", id="banned-player"),
    pytest.param(seated(0, lambda *_: 10**20), "seats", "less than or equal", id="huge-player-id"),
    pytest.param(seated(0, lambda *_: "amir"), "seats", "valid integer", id="seat-words"),
    pytest.param(lambda ids, _: {"seats": ids[:3]}, "seats", "exactly 4 seats", id="three-seats"),
    pytest.param(
        lambda ids, banned: {"seats": [*ids, banned]}, "seats", "exactly 4 seats", id="five"
    ),
    pytest.param(lambda *_: {"mode": "blitz"}, "mode", "not a valid choice", id="unknown-mode"),
    pytest.param(
        lambda *_: {"first_trump_seat": 4}, "first_trump_seat", "less than or equal", id="seat-4"
    ),
    pytest.param(
        lambda *_: {"external_id": ""}, "external_id", "may not be blank", id="blank-external-id"
    ),
]


@pytest.mark.parametrize(("change", "field", "phrase"), BAD_MATCHES)
def test_bad_match_is_rejected(service, cast, change, field, phrase):
    banned = player_create(username="eve", display_name="Eve")
    Player.objects.filter(pk=banned.pk).update(is_banned=True)
    body = {"mode": "ranked", "seats": ids_of(cast), **change(ids_of(cast), banned.pk)}
    counts = stored_counts()

    assert_rejected(service.post(MATCHES, body), counts, field, phrase)


WHOLE_MATCH_ROUNDS = [
    # rounds, status, field, phrase: the whole request is refused, no match is created.
    pytest.param(
        [round_body(0, 7, 3), round_body(0, 8, 3)], 400, "rounds[1].tricks", ONE_ROUND, id="8:3"
    ),
    pytest.param(
        [round_body(0, 7, 3), round_body(1, 7, 3)], 400, "rounds[1].trump_seat", "§5", id="caller"
    ),
    pytest.param(
        [round_body(0, 7, 0, "stop"), round_body(2, 7, 3)],
        409,
        "rounds[1].match",
        "no more rounds",
        id="round-after-the-end",
    ),
    pytest.param(
        [{"number": 1, **round_body(0, 7, 3)}, {"number": 1, **round_body(0, 7, 3)}],
        400,
        "rounds[1].number",
        "round 1 is given twice",
        id="a-round-twice",
    ),
]


@pytest.mark.parametrize(("rounds", "status", "field", "phrase"), WHOLE_MATCH_ROUNDS)
def test_whole_match_with_one_bad_round_creates_nothing(
    service, cast, rounds, status, field, phrase
):
    counts = stored_counts()
    body = {"mode": "ranked", "seats": ids_of(cast), "rounds": rounds}
    assert_rejected(service.post(MATCHES, body), counts, field, phrase, status=status)


def test_whole_match_with_a_malformed_round_names_its_index(service, cast):
    counts = stored_counts()
    rounds = [round_body(0, 7, 3), round_body(0, "seven", 3)]
    response = service.post(MATCHES, {"mode": "ranked", "seats": ids_of(cast), "rounds": rounds})

    assert_rejected(response, counts, "rounds", "valid integer")
    assert "tricks" in response.data["rounds"][1]


# --- bodies that are not a JSON object --------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "fields"),
    [
        pytest.param("{nope", ["detail"], id="not-json"),
        pytest.param("", ["mode", "seats"], id="empty"),
        pytest.param("[1, 2]", ["non_field_errors"], id="a-list"),
    ],
)
def test_a_body_that_is_not_a_match_is_rejected(service, cast, raw, fields):
    counts = stored_counts()
    response = service.client.post(MATCHES, data=raw, content_type="application/json")

    assert response.status_code == 400
    assert sorted(response.data) == fields
    assert stored_counts() == counts


@pytest.mark.parametrize(
    ("raw", "fields"),
    [
        pytest.param("{nope", ["detail"], id="not-json"),
        pytest.param("", ["tricks", "trump_seat"], id="empty"),
    ],
)
def test_a_body_that_is_not_a_round_is_rejected(service, match_id, raw, fields):
    counts = stored_counts()
    path = f"{MATCHES}{match_id}/rounds/"
    response = service.client.post(path, data=raw, content_type="application/json")

    assert response.status_code == 400
    assert sorted(response.data) == fields
    assert stored_counts() == counts


# --- lenient input: a repeated key, a number for a text -------------------------------------


def test_a_repeated_key_is_a_400_naming_it_not_its_last_value(service, cast):
    seats = ", ".join(str(player_id) for player_id in ids_of(cast))
    raw = f'{{"mode": "room", "seats": [{seats}], "mode": "ranked"}}'
    counts = stored_counts()

    response = service.client.post(MATCHES, data=raw, content_type="application/json")

    assert_rejected(response, counts, "mode", "appears more than once")
    assert list(response.data) == ["mode"]


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        pytest.param(
            '{"trump_seat": 0, "tricks": {"A": 3, "B": 3, "A": 7}}', ["tricks", "A"], id="tricks"
        ),
        pytest.param(
            '{"trump_seat": 0, "tricks": {"A": 7, "B": 0}, "bavan": "stop", "bavan_votes": '
            '[{"seat": 0, "vote": "stop", "at_ms": 1}, {"seat": 2, "seat": 0, "vote": "stop", '
            '"at_ms": 2}]}',
            ["bavan_votes", "1", "seat"],
            id="a-vote",
        ),
    ],
)
def test_a_repeated_nested_key_is_named_by_its_path(service, match_id, raw, path):
    counts = stored_counts()
    response = service.client.post(
        f"{MATCHES}{match_id}/rounds/", data=raw, content_type="application/json"
    )

    assert response.status_code == 400, response.data
    named = response.json()
    for name in path:
        assert list(named) == [name], response.data
        named = named[name]
    assert "appears more than once" in named[0]
    assert stored_counts() == counts


def test_a_number_for_a_username_makes_no_player(service):
    response = service.post("/api/v1/players/", {"username": -792})

    assert response.status_code == 400, response.data
    assert response.data == {"username": ["Not a valid string."]}
    assert not Player.objects.exists()


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        pytest.param("/api/v1/players/", {"username": "farid", "display_name": 7}, "display_name"),
        pytest.param(MATCHES, {"mode": "room", "external_id": 12345}, "external_id"),
        pytest.param(MATCHES, {"mode": "room", "client_version": 1.5}, "client_version"),
    ],
)
def test_a_number_for_a_text_field_is_refused(service, cast, path, body, field):
    counts = stored_counts()
    response = service.post(path, {"seats": ids_of(cast), **body})

    assert_rejected(response, counts, field, "Not a valid string.")
    assert not Player.objects.filter(username="farid").exists()


def test_a_number_for_a_belote_pair_is_refused(service):
    response = service.post("/api/v1/belote/protocols/", {"pairs": {"pair_1": 1, "pair_2": "b"}})

    assert response.status_code == 400, response.data
    assert response.data == {"pairs": {"pair_1": ["Not a valid string."]}}


# --- credentials (API.md "Conventions": service key to write) ---------------------------------


@pytest.fixture
def player_api(api, cast):
    return api.as_player(player_token(cast[0]).key)


@pytest.mark.parametrize(
    ("client_of", "status"),
    [
        pytest.param(lambda api, _: api, 401, id="missing"),
        pytest.param(lambda _, player_api: player_api, 403, id="player-token"),
        pytest.param(lambda api, _: api.as_service("not.a-key"), 401, id="wrong-service-key"),
        pytest.param(lambda api, _: api.as_player("0" * 40), 401, id="wrong-player-token"),
    ],
)
def test_writes_need_a_service_key(api, player_api, match_id, cast, client_of, status):
    client = client_of(api, player_api)
    counts = stored_counts()
    writes = [
        (MATCHES, {"mode": "ranked", "seats": ids_of(cast)}),
        (f"{MATCHES}{match_id}/rounds/", round_body(0, 7, 3)),
        ("/api/v1/players/", {"username": "farid"}),
        (f"/api/v1/players/{cast[1].id}/token/", None),
    ]

    answers = [client.post(path, body).status_code for path, body in writes]

    assert answers == [status] * len(writes)
    assert stored_counts() == counts
    assert not Player.objects.filter(username="farid").exists()

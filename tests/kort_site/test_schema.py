"""The OpenAPI schema (API.md: served at /api/schema/) generates cleanly, validates, and says
what the server does: each operation's credentials and error answers, the leaderboard's page,
the seats of a match. CI also runs it against the live service (.ci/schema_check)."""

import pytest
import yaml
from django.core.management import call_command

from tests.api_steps import ids_of, match_start, stored_counts

Security = list[dict[str, list[str]]]
"""An operation's ``security`` in the schema: the alternatives, each scheme to its scopes."""

SERVICE_KEY: Security = [{"ServiceKey": []}]
PLAYER_TOKEN: Security = [{"tokenAuth": []}]
OPTIONAL: Security = [{"tokenAuth": []}, {"ServiceKey": []}, {}]


@pytest.fixture(scope="module")
def schema(tmp_path_factory) -> dict:
    target = tmp_path_factory.mktemp("schema") / "s.yaml"
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(target))
    return yaml.safe_load(target.read_text())


def operation(schema, method: str, path: str) -> dict:
    return schema["paths"][f"/api/v1/{path}"][method]


def test_the_schema_generates_without_warnings_and_validates(schema):
    assert "/api/v1/matches/{id}/rounds/" in schema["paths"]


@pytest.mark.parametrize(
    ("method", "path", "security"),
    [
        ("post", "players/", SERVICE_KEY),
        ("post", "players/{id}/token/", SERVICE_KEY),
        ("post", "matches/", SERVICE_KEY),
        ("post", "matches/{id}/rounds/", SERVICE_KEY),
        ("post", "matches/{match_id}/rounds/{number}/finish/", SERVICE_KEY),
        ("post", "matches/{match_id}/seats/{seat}/leave/", SERVICE_KEY),
        ("post", "belote/protocols/", SERVICE_KEY),
        ("post", "belote/protocols/{id}/deals/", SERVICE_KEY),
        ("post", "matches/{match_id}/rounds/{number}/vote/", PLAYER_TOKEN),
        ("get", "players/me/stats/", PLAYER_TOKEN),
        ("get", "matches/{match_id}/rounds/{number}/vote/", OPTIONAL),
        ("get", "leaderboard/", OPTIONAL),
        ("post", "belote/score/", OPTIONAL),
    ],
)
def test_each_operation_lists_the_credentials_it_takes(schema, method, path, security):
    assert operation(schema, method, path)["security"] == security


@pytest.mark.parametrize(
    ("method", "path", "errors"),
    [
        ("post", "players/", {"400", "401", "403", "409", "413", "415", "422", "429"}),
        (
            "post",
            "players/{id}/token/",
            {"400", "401", "403", "404", "409", "413", "415", "422", "429"},
        ),
        (
            "post",
            "matches/{id}/rounds/",
            {"400", "401", "403", "404", "409", "413", "415", "422", "429"},
        ),
        (
            "post",
            "matches/{match_id}/rounds/{number}/vote/",
            {"400", "401", "403", "404", "409", "413", "415", "422", "429"},
        ),
        (
            "post",
            "matches/{match_id}/seats/{seat}/leave/",
            {"400", "401", "403", "404", "409", "413", "415", "422", "429"},
        ),
        ("get", "matches/{id}/", {"401", "404", "429"}),
        ("get", "leaderboard/", {"400", "401", "414", "429"}),
        ("get", "players/", {"400", "401", "414", "429"}),
        ("get", "seasons/", {"400", "401", "404", "414", "429"}),
    ],
)
def test_each_operation_documents_its_errors_with_their_bodies(schema, method, path, errors):
    responses = operation(schema, method, path)["responses"]

    assert {code for code in responses if code >= "400"} == errors
    for code in errors:
        body = responses[code]["content"]["application/json"]["schema"]["$ref"]
        assert body.endswith("FieldErrors" if code in ("400", "409", "422") else "Error")
    assert "Retry-After" in responses["429"]["headers"]


def test_the_leaderboard_is_a_page_with_limit_and_offset(schema):
    board = operation(schema, "get", "leaderboard/")
    page = schema["components"]["schemas"]["PaginatedLeaderboardRowList"]

    assert [p["name"] for p in board["parameters"]] == ["limit", "offset"]
    assert all(p["schema"] == {"type": "integer", "minimum": 0} for p in board["parameters"])
    assert "clamped to 100" in board["parameters"][0]["description"]
    assert set(page["properties"]) == {"count", "next", "previous", "results"}


def test_around_takes_only_a_radius_of_0_to_50(schema):
    around = operation(schema, "get", "leaderboard/around/{player_id}/")

    radius = [p for p in around["parameters"] if p["in"] == "query"]
    assert [(p["name"], p["schema"]) for p in radius] == [
        ("radius", {"type": "integer", "maximum": 50, "minimum": 0, "default": 5})
    ]
    answer = around["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert answer.endswith("/LeaderboardAround")


def test_a_match_has_exactly_four_distinct_seats(schema):
    seats = schema["components"]["schemas"]["MatchCreate"]["properties"]["seats"]

    assert (seats["minItems"], seats["maxItems"], seats["uniqueItems"]) == (4, 4, True)


def test_the_token_operation_says_bots_get_no_token(schema):
    token = operation(schema, "post", "players/{id}/token/")

    assert "Bots get no token" in token["description"]
    assert "bots get no token" in token["responses"]["400"]["description"]


def test_the_token_can_be_revoked_with_a_service_key_or_the_players_token(schema):
    revoke = operation(schema, "delete", "players/{id}/token/")
    minted = schema["components"]["schemas"]["Token"]

    assert revoke["security"] == [{"tokenAuth": []}, {"ServiceKey": []}]
    assert {"204", "401", "403", "404"} <= set(revoke["responses"])
    assert set(minted["required"]) == {"token", "expires_at"}
    assert minted["properties"]["expires_at"]["format"] == "date-time"


@pytest.mark.parametrize(
    ("path", "name", "minimum"),
    [
        ("players/{player_id}/stats/", "season", 1),
        ("players/me/stats/", "season", 1),
        ("seasons/{number}/leaderboard/", "limit", 0),
        ("seasons/{number}/leaderboard/", "offset", 0),
        ("leaderboard/", "limit", 0),
    ],
)
def test_numbers_in_query_strings_have_their_minimum(schema, path, name, minimum):
    parameters = {p["name"]: p["schema"] for p in operation(schema, "get", path)["parameters"]}

    assert parameters[name] == {"type": "integer", "minimum": minimum}


def test_the_pair_names_and_the_play_records_have_their_shapes(schema):
    components = schema["components"]["schemas"]
    pairs = components["SheetPairs"]["properties"]
    finish_play = components["RoundFinish"]["properties"]["play"]
    report_play = components["RoundReport"]["properties"]["play"]

    assert [(p["minLength"], p["maxLength"]) for p in pairs.values()] == [(1, 60), (1, 60)]
    assert finish_play["type"] == report_play["type"] == "object"
    assert report_play["nullable"] is True
    assert finish_play["properties"]["hands"]["items"]["type"] == "array"


@pytest.mark.parametrize("play", ["7H", [["AH"]], 7])
def test_a_play_record_that_is_no_object_is_a_400_as_the_schema_says(service, cast, play):
    match_id = match_start(service, ids_of(cast))

    refused = service.post(f"/api/v1/matches/{match_id}/rounds/", {"trump_seat": 0, "play": play})

    assert refused.status_code == 400
    assert "the record must be an object" in str(refused.data["play"])
    assert stored_counts()["rounds"] == 0

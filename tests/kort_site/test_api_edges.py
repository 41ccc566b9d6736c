"""Hostile input at the edges of the API: never a 500, always the API's error shape."""

from base64 import b64encode

import pytest
from rest_framework.test import APIClient

from domain.paging import InvalidCursor
from matches.models import Seat
from players.models import Player, PlayerToken
from tests.api_steps import MATCHES, ids_of, match_start, round_body, stored_counts

HUGE = 2**63


def test_json_nested_too_deeply_is_a_400(service):
    body = "[" * 5000 + "]" * 5000

    response = service.client.post("/api/v1/players/", body, content_type="application/json")

    assert response.status_code == 400
    assert "nested too deeply" in response.json()["detail"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", f"/api/v1/matches/{HUGE}/rounds/1/vote/"),
        ("post", f"/api/v1/matches/{HUGE}/rounds/1/finish/"),
        ("post", f"/api/v1/matches/{HUGE}/seats/1/leave/"),
        ("post", f"/api/v1/matches/{HUGE}/rounds/"),
        ("get", f"/api/v1/matches/{HUGE}/"),
        ("get", f"/api/v1/players/{HUGE}/stats/"),
        ("get", f"/api/v1/leaderboard/around/{HUGE}/"),
        ("get", f"/api/v1/belote/protocols/{HUGE}/"),
    ],
)
def test_an_id_beyond_64_bits_is_a_404(service, method, path):
    response = getattr(service.client, method)(path, {}, format="json")

    assert response.status_code == 404


def test_a_username_differing_only_in_case_is_taken(service):
    assert service.post("/api/v1/players/", {"username": "Amir"}).status_code == 201

    response = service.post("/api/v1/players/", {"username": "amir"})

    assert response.status_code == 400
    assert "already exists" in str(response.data["username"])
    assert Player.objects.count() == 1


def test_a_resend_with_an_explicit_null_is_the_same_report(service, cast):
    match_id = match_start(service, ids_of(cast))
    first = service.post(f"{MATCHES}{match_id}/rounds/", {**round_body(0, 7, 3), "number": 1})
    assert first.status_code == 201, first.data

    again = {**round_body(0, 7, 3), "number": 1, "bavan": None}
    response = service.post(f"{MATCHES}{match_id}/rounds/", again)

    assert response.status_code == 200, response.data


def test_a_round_numbered_past_the_end_of_a_match_is_a_conflict(service, cast):
    body = {"mode": "ranked", "seats": ids_of(cast), "rounds": [round_body(0, 7, 0, "stop")]}
    match_id = service.post(MATCHES, body).data["id"]

    response = service.post(f"{MATCHES}{match_id}/rounds/", {**round_body(2, 7, 3), "number": 9})

    assert response.status_code == 409, response.data
    assert "the match ended" in str(response.data["match"])


# Lists are paginated (API.md "Conventions"): a cursor or a page that is none is a 400 naming
# it, never DRF's 404 nor a 500 from the database.

NOT_CURSORS = [
    "garbage",
    b64encode(b"p=abc").decode(),  # a word where an id goes
    b64encode(b"p=1e5").decode(),
    b64encode(b"r=1&p=\x00").decode(),
    b64encode(b"p=").decode(),
    b64encode(f"p={HUGE}".encode()).decode(),  # past 64 bits
    b64encode(b"o=-1&p=1").decode(),
    b64encode(b"r=x").decode(),
    "w6k=",  # not ASCII once decoded
]
CURSOR_LISTS = [
    "/api/v1/players/",
    "/api/v1/players/{player}/matches/",
    "/api/v1/players/{player}/partners/",
    "/api/v1/players/{player}/opponents/",
]


@pytest.mark.parametrize("path", CURSOR_LISTS)
@pytest.mark.parametrize("cursor", NOT_CURSORS)
def test_a_cursor_that_is_none_of_the_lists_is_a_400_naming_it(api, cast, path, cursor):
    response = api.get(path.format(player=cast[0].pk), {"cursor": cursor})

    assert response.status_code == 400, response.content
    assert response.json() == {"cursor": list(InvalidCursor().messages)}


def test_a_cursor_of_the_players_list_still_leads_on(api, cast):
    ids = [player["id"] for player in api.get("/api/v1/players/").json()["results"]]

    response = api.get("/api/v1/players/", {"cursor": b64encode(f"p={ids[1]}".encode()).decode()})

    assert response.status_code == 200, response.content
    assert [player["id"] for player in response.json()["results"]] == ids[2:]


PAGE_LISTS = [
    "/api/v1/seasons/",
    "/api/v1/players/{player}/cups/",
    "/api/v1/players/{player}/seasons/",
    "/api/v1/matches/",
    "/api/v1/belote/protocols/",
]


@pytest.mark.parametrize("path", PAGE_LISTS)
@pytest.mark.parametrize("page", ["abc", "0", "-1", "1.5", "+1", "\u0661"])
def test_a_page_that_is_not_a_positive_whole_number_is_a_400_naming_it(api, cast, path, page):
    response = api.get(path.format(player=cast[0].pk), {"page": page})

    assert response.status_code == 400, response.content
    assert response.json() == {"page": [f"must be a whole number from 1; got {page!r}"]}


@pytest.mark.parametrize("path", PAGE_LISTS)
def test_the_first_and_last_pages_answer_and_one_past_the_last_is_a_404(api, cast, path):
    path = path.format(player=cast[0].pk)
    first = api.get(path).json()

    assert [api.get(path, {"page": page}).json() for page in ("1", "", "last")] == [first] * 3
    assert api.get(path, {"page": "99"}).status_code == 404


# Every answer under /api/ is JSON, bodies are JSON only, paths answer with or without their
# trailing slash (API.md "Conventions").


@pytest.mark.parametrize(
    "content",
    [
        {"data": "trump_seat=1&play=null", "content_type": "application/x-www-form-urlencoded"},
        {"data": {"trump_seat": "1", "play": "null"}, "format": "multipart"},
        {"data": "<round/>", "content_type": "application/xml"},
    ],
    ids=["form", "multipart", "xml"],
)
@pytest.mark.parametrize("part", ["rounds/", "rounds/1/finish/"])
def test_a_body_that_is_not_json_is_a_415(service, cast, content, part):
    match_id = match_start(service, ids_of(cast))
    before = stored_counts()

    response = service.client.post(f"{MATCHES}{match_id}/{part}", **content)

    assert response.status_code == 415, response.content
    assert "Unsupported media type" in response.json()["detail"]
    assert stored_counts() == before


@pytest.mark.parametrize(
    ("content", "part"),
    [
        ({"data": "<leave/>", "content_type": "text/xml"}, "seats/2/leave/"),
        ({"data": "hello", "content_type": "text/plain"}, "token/"),
        ({"data": "seat=2", "content_type": "application/x-www-form-urlencoded"}, "token/"),
        ({"data": b"\x00{}", "content_type": "application/octet-stream"}, "seats/2/leave/"),
    ],
    ids=["xml-leave", "text-token", "form-token", "bytes-leave"],
)
def test_a_body_that_is_not_json_is_a_415_where_the_view_reads_no_body(
    service, cast, content, part
):
    """A seat's leave and a token's mint read no body: a body that is not JSON is refused
    before they run, and nothing is written."""
    match_id = match_start(service, ids_of(cast))
    path = f"{MATCHES}{match_id}/{part}" if part.startswith("seats") else None
    path = path or f"/api/v1/players/{cast[0].pk}/{part}"

    response = service.client.post(path, **content)

    assert response.status_code == 415, response.content
    assert response.json()["detail"].startswith("Unsupported media type")
    assert not Seat.objects.filter(left_at__isnull=False).exists()
    assert not PlayerToken.objects.exists()


@pytest.mark.parametrize(
    ("part", "status"), [("seats/2/leave/", 200), ("token/", 201)], ids=["leave", "token"]
)
def test_a_post_without_a_body_needs_no_content_type(service, cast, part, status):
    match_id = match_start(service, ids_of(cast))
    path = f"{MATCHES}{match_id}/{part}" if part.startswith("seats") else None
    path = path or f"/api/v1/players/{cast[0].pk}/{part}"

    response = service.client.post(path)

    assert "CONTENT_TYPE" not in response.wsgi_request.META
    assert response.status_code == status, response.content


def test_a_post_without_the_trailing_slash_creates_without_a_redirect(service):
    response = service.post("/api/v1/players", {"username": "amir"})

    assert response.status_code == 201, response.content
    assert Player.objects.get().username == "amir"


@pytest.mark.parametrize(
    "path",
    ["/api/v1/players", "/api/v1/leaderboard", "/api/v1/players/me/stats", "/api/schema"],
)
def test_a_read_without_the_trailing_slash_answers_in_place(api, path):
    response = api.get(path)

    assert response.status_code in (200, 401), response.content
    assert "Location" not in response


def test_a_player_path_without_its_slash_reads_the_player(service, api, cast):
    response = api.get(f"/api/v1/players/{cast[0].pk}")

    assert response.status_code == 200
    assert response.json()["username"] == "amir"


def test_a_body_over_the_limit_is_a_413_in_json(service, settings):
    settings.KORT_MAX_BODY_BYTES = 1024 * 1024
    body = '{"username": "' + "a" * (5 * 1024 * 1024) + '"}'

    response = service.client.post("/api/v1/players/", body, content_type="application/json")

    assert response.status_code == 413
    assert "at most 1048576 bytes" in response.json()["detail"]
    assert Player.objects.count() == 0


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "no-debug"])
def test_an_unknown_api_path_is_a_json_404(api, settings, debug):
    settings.DEBUG = debug

    response = api.get("/api/v1/nothing-here/")

    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


def test_a_wrong_method_is_a_json_405_naming_the_allowed_ones(api):
    response = api.client.delete("/api/v1/leaderboard/")

    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, OPTIONS"
    assert "not allowed" in response.json()["detail"]


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "no-debug"])
def test_a_server_error_is_a_json_500(db, settings, monkeypatch, debug):
    settings.DEBUG = debug

    def broken(*args, **kwargs):
        raise RuntimeError("the database is on fire")

    monkeypatch.setattr("ranking.selectors.board_page", broken)
    client = APIClient(raise_request_exception=False)

    response = client.get("/api/v1/leaderboard/")

    assert response.status_code == 500
    assert response.json() == {"detail": "Internal Server Error"}


def test_pages_outside_the_api_keep_their_html(staff):
    assert staff.get("/admin/").status_code == 200
    assert staff.get("/admin/nothing-here/").status_code == 404
    assert "text/html" in staff.get("/api/docs/")["Content-Type"]

"""A season of the ladder played through the API, and its end by the command a client's
operator runs (KORT_RULES §10; API.md "Seasons"). Shared by the season tests."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from tests.api_steps import PLAYERS, match_play, round_body

SEASONS = "/api/v1/seasons/"
LEADERBOARD = "/api/v1/leaderboard/"

HUMANS = ("amir", "bita", "cyrus", "dara", "elham", "farid", "gita", "hamid", "iman", "jaleh")

THREE_ONE = [round_body(0, 7, 2), round_body(0, 2, 7), round_body(1, 7, 3), round_body(2, 7, 1)]
"""A ranked 3:1 of plain wins for team A: A +1 -1 +1 +1 +2 = +4, B -1 +1 -1 -1 = -2 (§7)."""

SEASON_ONE = {
    # name: (cups at the end, best cups in the season, ranked matches played, won)
    "elham": (22, 22, 2, 2),
    "farid": (18, 18, 1, 1),
    "amir": (14, 14, 2, 2),
    "cyrus": (10, 10, 1, 1),
    "gita": (8, 8, 1, 1),
    "iman": (6, 8, 2, 1),
    "hamid": (-5, 0, 2, 0),
    "bita": (-18, 0, 2, 0),
    "dara": (-18, 0, 2, 0),
}
"""Season 1's final standings in rank order (bita before dara: the same total reached in the
same match, and the lower id)."""


def season_one_play(service) -> dict[str, int]:
    """Players by name -> id (and ``robo``, a bot), after season 1's matches:

    1. ranked [amir, bita, cyrus, dara], A's Kort: amir, cyrus +10; bita, dara -5;
    2. ranked [elham, bita, farid, dara], A's At-bavan: elham, farid +18; bita, dara -13;
    3. ranked [gita, hamid, iman, robo], A 3:0 of plain wins: gita, iman +8; hamid -3;
    4. ranked [amir, hamid, elham, iman], A 3:1 (``THREE_ONE``): amir, elham +4; hamid, iman -2;
    5. room [jaleh, bita, amir, robo], B's At-kort: statistics only.
    """
    ids = {name: service.post(PLAYERS, {"username": name}).data["id"] for name in HUMANS}
    ids["robo"] = service.post(PLAYERS, {"username": "robo", "is_bot": True}).data["id"]

    def seats(*names):
        return [ids[name] for name in names]

    match_play(service, seats("amir", "bita", "cyrus", "dara"), [round_body(0, 7, 0, "stop")])
    at_bavan = [round_body(1, 13, 0, "go")]
    match_play(service, seats("elham", "bita", "farid", "dara"), at_bavan, first_trump_seat=1)
    match_play(service, seats("gita", "hamid", "iman", "robo"), [round_body(0, 7, 4)] * 3)
    match_play(service, seats("amir", "hamid", "elham", "iman"), THREE_ONE)
    room = seats("jaleh", "bita", "amir", "robo")
    match_play(service, room, [round_body(0, 0, 7, "stop")], mode="room")
    return ids


def season_end(*args) -> str:
    """``manage.py season_end`` with ``args``; its output."""
    out = StringIO()
    call_command("season_end", *args, stdout=out)
    return out.getvalue()


def board(api, path=LEADERBOARD, **params) -> list[dict]:
    response = api.get(path, params)
    assert response.status_code == 200, response.data
    return response.data["results"]

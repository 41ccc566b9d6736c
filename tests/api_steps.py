"""Steps the API tests share: start a match and report its rounds as a game server does
(API.md "Matches"), and read back what a client sees."""

from __future__ import annotations

from matches.models import Match, Round
from players.models import Player
from ranking.models import CupChange

MATCHES = "/api/v1/matches/"
PLAYERS = "/api/v1/players/"


def ids_of(players) -> list[int]:
    """Player ids in seat order."""
    return [player.id for player in players]


def round_body(
    trump_seat: object, tricks_a: object, tricks_b: object, bavan: str | None = None, **extra
):
    """A round report in summary form: ``round_body(0, 7, 3)`` is seat 0 calling, A 7:3. The
    values are sent as given (ints; anything else for a refusal)."""
    body = {"trump_seat": trump_seat, "tricks": {"A": tricks_a, "B": tricks_b}, **extra}
    if bavan is not None:
        body["bavan"] = bavan
    return body


def vote(seat: int, choice: str, at_ms: int) -> dict:
    """One reported vote of ``bavan_votes``: ``vote(0, "bavan", 1200)`` (KORT_RULES §4)."""
    return {"seat": seat, "vote": choice, "at_ms": at_ms}


def match_start(service, seats, *, mode="ranked", first_trump_seat=0, **extra) -> int:
    """Create a match through the API (201) and return its id."""
    body = {"mode": mode, "seats": seats, "first_trump_seat": first_trump_seat, **extra}
    response = service.post(MATCHES, body)
    assert response.status_code == 201, response.data
    return response.data["id"]


def rounds_report(service, match_id: int, rounds) -> list[dict]:
    """Report ``rounds`` in order, numbered after the rounds already stored; each must be
    accepted (201). Returns the answers' bodies."""
    first = len(Round.objects.filter(match_id=match_id)) + 1
    answers = []
    for number, body in enumerate(rounds, start=first):
        response = service.post(f"{MATCHES}{match_id}/rounds/", {"number": number, **body})
        assert response.status_code == 201, (number, response.data)
        answers.append(response.data)
    return answers


def match_play(service, seats, rounds, *, mode="ranked", first_trump_seat=0) -> int:
    """Create a match, report all its rounds one by one and return its id."""
    match_id = match_start(service, seats, mode=mode, first_trump_seat=first_trump_seat)
    rounds_report(service, match_id, rounds)
    return match_id


def korts_won(service, player_id: int, count: int, *, mode: str = "ranked") -> list[int]:
    """``count`` matches of ``player_id`` at seat 0, each with three new players and won at
    once by team A's Kort (KORT_RULES §2, §5); their ids. Ranked ones are finalized."""
    match_ids = []
    for _ in range(count):
        others = [
            service.post(PLAYERS, {"username": f"player{Player.objects.count()}"}).data["id"]
            for _ in range(3)
        ]
        seats = [player_id, *others]
        match_ids.append(match_play(service, seats, [round_body(0, 7, 0, "stop")], mode=mode))
    return match_ids


def match_read(api, match_id: int) -> dict:
    response = api.get(f"{MATCHES}{match_id}/")
    assert response.status_code == 200, response.data
    return response.data


def player_read(api, player_id: int, part: str = "") -> dict:
    """``GET /players/{id}/`` or one of its parts (``stats/``, ``matches/``)."""
    response = api.get(f"{PLAYERS}{player_id}/{part}")
    assert response.status_code == 200, response.data
    return response.data


def stored_counts() -> dict[str, int]:
    """Rows a rejected request must leave alone."""
    return {
        "matches": Match.objects.count(),
        "rounds": Round.objects.count(),
        "cup_changes": CupChange.objects.count(),
    }


def team_cups(seats, team_a: int, team_b: int) -> dict[str, int]:
    """The ``cups`` of a match as the API shows it: seats 0 and 2 get ``team_a``."""
    return {str(pid): team_a if seat % 2 == 0 else team_b for seat, pid in enumerate(seats)}

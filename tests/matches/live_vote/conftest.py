"""Fixtures of the live Bavan vote tests (KORT_RULES §4): a frozen clock moved by hand and a
table that drives one match through the HTTP API as a game server and its players do."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from matches.live_vote.models import BavanVote
from players.services import player_create, player_token

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
"""The moment the tests' votes open."""


def at(seconds: float) -> datetime:
    """The moment ``seconds`` after T0."""
    return T0 + timedelta(seconds=seconds)


def iso(moment: datetime) -> str:
    """A moment as the API writes it."""
    return moment.isoformat().replace("+00:00", "Z")


class Table:
    """One match of four seated players, played over the API."""

    def __init__(self, service, api, players, match_id: int):
        self.service = service
        self.api = api
        self.players = players
        self.match_id = match_id

    @property
    def url(self) -> str:
        return f"/api/v1/matches/{self.match_id}/"

    def report(self, trump_seat: int, a: int, b: int, bavan: str | None = None, **extra):
        body = {"trump_seat": trump_seat, "tricks": {"A": a, "B": b}, **extra}
        if bavan is not None:
            body["bavan"] = bavan
        return self.service.post(f"{self.url}rounds/", body)

    def open_vote(self, trump_seat: int = 0, a: int = 7, b: int = 0, **extra):
        opened = self.report(trump_seat, a, b, "vote", **extra)
        assert opened.status_code == 201, opened.data
        return opened

    def player(self, seat: int):
        return self.api.as_player(player_token(self.players[seat]).key)

    def vote(self, seat: int, choice: str, number: int = 1):
        return self.player(seat).post(f"{self.url}rounds/{number}/vote/", {"vote": choice})

    def state(self, number: int = 1) -> dict:
        read = self.api.get(f"{self.url}rounds/{number}/vote/")
        assert read.status_code == 200, read.data
        return read.data

    def finish(self, a: int, b: int, number: int = 1):
        return self.service.post(f"{self.url}rounds/{number}/finish/", {"tricks": {"A": a, "B": b}})

    def leave(self, seat: int):
        return self.service.post(f"{self.url}seats/{seat}/leave/")

    def match(self) -> dict:
        return self.api.get(self.url).data

    def vote_id(self, number: int = 1) -> int:
        return BavanVote.objects.get(round__match_id=self.match_id, round__number=number).pk


@pytest.fixture
def clock():
    """Time frozen at T0; ``clock.move_to(at(s))`` moves it."""
    with time_machine.travel(T0, tick=False) as traveller:
        yield traveller


@pytest.fixture
def seat_table(service, api, cast):
    """``seat_table(bots=(2,), mode="ranked", first_trump_seat=0)``: a match of the cast, with
    bots at the seats named in ``bots``."""

    def start(bots=(), mode="ranked", first_trump_seat=0) -> Table:
        players = [
            player_create(username=f"bot{seat}", is_bot=True) if seat in bots else human
            for seat, human in enumerate(cast)
        ]
        body = {
            "mode": mode,
            "seats": [p.id for p in players],
            "first_trump_seat": first_trump_seat,
        }
        created = service.post("/api/v1/matches/", body)
        assert created.status_code == 201, created.data
        return Table(service, api, players, created.data["id"])

    return start


@pytest.fixture
def table(seat_table) -> Table:
    """A ranked match of four humans (Amir, Bita, Cyrus, Dara); seat 0 calls trump first."""
    return seat_table()


@pytest.fixture
def run_task(django_capture_on_commit_callbacks):
    """``run_task(task, *args)``: run a task now, in-process, then what it queued on commit."""

    def run(task, *args):
        with django_capture_on_commit_callbacks(execute=True):
            return task(*args)

    return run

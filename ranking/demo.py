"""A small demo ladder, seeded and idempotent (``manage.py load_demo_ladder``).

Twelve humans and two bots (usernames ``demo.<name>``) play 20 ranked and 4 room matches of
random legal rounds (KORT_RULES §2, with the callers of §5), reported through
``matches.services.match_create`` under the service key named ``demo``, so they are checked and
finalized as a game server's would be. Each match has the external id ``demo/<n>``: a second
load finds them and creates nothing. The same seed always gives the same ladder. The room
matches and every fourth ranked match are played card by card by the seeded bots and reported
with their full records (``play``); the others are reported as summaries.

The random rounds (:func:`random_match_rounds`) also feed the benchmarks in ``bench/``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rest_framework_api_key.models import APIKey

from matches.kort.bots import play_round
from matches.kort.replay import replay_record
from matches.kort.rules import (
    TARGET_WINS,
    BavanDecision,
    Mode,
    RoundResult,
    Team,
    match_winner,
    next_trump_seat,
    round_outcome,
    team_of,
)
from matches.reports import RoundReport
from matches.services import match_create
from players.models import Player
from players.services import player_create

SEED = 1404
DEMO_KEY_NAME = "demo"
HUMANS = (
    "Amir",
    "Bita",
    "Cyrus",
    "Dara",
    "Elham",
    "Farid",
    "Golnar",
    "Hamid",
    "Iman",
    "Jaleh",
    "Kian",
    "Leyla",
)
BOTS = ("Rook", "Pawn")
RANKED_MATCHES = 20
ROOM_MATCHES = 4

ENDINGS = {"win": 70, "stop": 14, "made": 6, "failed": 10}
"""Relative weights of how a random round ends: a plain win, a 7:0 that stops (Kort or
At-kort), a Bavan made, a Bavan failed."""
TRUMP_TEAM_LEADS = 0.6
"""Chance that the trump team is the team that reaches 7 tricks."""


def random_round(rng: random.Random, trump_seat: int) -> dict:
    """A legal round report in summary form (API.md "Matches") whose caller is ``trump_seat``:
    ``{"trump_seat", "tricks": {"A": n, "B": m}}`` and ``"bavan"`` after a 7:0 (KORT_RULES §2)."""
    trump_team = team_of(trump_seat)
    leader = trump_team if rng.random() < TRUMP_TEAM_LEADS else trump_team.other
    ending = rng.choices(list(ENDINGS), weights=list(ENDINGS.values()))[0]
    high, low, bavan = {
        "win": (7, rng.randint(1, 6), None),
        "stop": (7, 0, BavanDecision.STOP),
        "made": (13, 0, BavanDecision.GO),
        "failed": (7 + rng.randint(0, 5), 1, BavanDecision.GO),
    }[ending]
    report = {"trump_seat": trump_seat, "tricks": {leader: high, leader.other: low}}
    if bavan is not None:
        report["bavan"] = bavan
    return report


def recorded_round(rng: random.Random, trump_seat: int) -> dict:
    """A round played card by card by the seeded bots, reported with its full record
    (``{"trump_seat", "play"}``, and ``"bavan": "stop"`` when it stopped at a 7:0)."""
    decision = rng.choice([BavanDecision.GO, BavanDecision.STOP])
    record = play_round(rng.randrange(2**32), trump_seat, decision, strategy="greedy")
    report = {"trump_seat": trump_seat, "play": record}
    if replay_record(record, trump_seat).vote_pending:
        report["bavan"] = decision
    return report


def round_result(report: dict) -> RoundResult:
    """What a round report counts for: from its record when it has one (KORT_RULES §2)."""
    if "play" in report:
        outcome = replay_record(report["play"], report["trump_seat"], report.get("bavan")).outcome
        assert outcome is not None  # a demo round is played to its end
        return outcome
    return round_outcome(report["trump_seat"], report["tricks"], report.get("bavan"))


def random_match_rounds(
    rng: random.Random, mode: Mode, first_trump_seat: int, *, recorded: bool = False
) -> list[dict]:
    """The reports of a whole random match: rounds until a team reaches the target wins of
    ``mode`` (KORT_RULES §1), each called by the seat §5 gives; played by the bots and reported
    with records when ``recorded``, else random summaries."""
    make_round = recorded_round if recorded else random_round
    wins = dict.fromkeys(Team, 0)
    trump_seat = first_trump_seat
    reports = []
    while match_winner(wins, TARGET_WINS[mode]) is None:
        report = make_round(rng, trump_seat)
        result = round_result(report)
        reports.append(report)
        wins[result.winner] += result.wins_awarded
        trump_seat = next_trump_seat(trump_seat, result)
    return reports


@dataclass(frozen=True)
class DemoLadder:
    """What a load did. ``key`` is the new demo service key (shown once), or None when the
    key named ``demo`` already existed."""

    key: str | None
    players: int
    players_created: int
    matches: int
    matches_created: int


def demo_ladder_load(seed: int = SEED) -> DemoLadder:
    """Create whatever part of the demo ladder is missing and return what was done.

    The matches are finalized when their creation commits: in-process on the embedded
    default, by the Celery worker when a broker is configured.
    """
    service_key, key = _demo_service_key()
    humans, new_humans = _demo_players(HUMANS, is_bot=False)
    bots, new_bots = _demo_players(BOTS, is_bot=True)
    rng = random.Random(seed)
    modes = [Mode.RANKED] * RANKED_MATCHES + [Mode.ROOM] * ROOM_MATCHES
    created = 0
    for number, mode in enumerate(modes, start=1):
        seats = _random_seats(rng, humans, bots, mode)
        first_trump_seat = rng.randrange(4)
        _, was_created = match_create(
            service_key=service_key,
            mode=mode,
            seats=[player.pk for player in seats],
            first_trump_seat=first_trump_seat,
            external_id=f"demo/{number}",
            client_version="demo",
            rounds=[
                RoundReport.from_wire(report)
                for report in random_match_rounds(
                    rng, mode, first_trump_seat, recorded=mode is Mode.ROOM or number % 4 == 0
                )
            ],
        )
        created += was_created
    players = len(humans) + len(bots)
    return DemoLadder(key, players, new_humans + new_bots, len(modes), created)


def _demo_service_key() -> tuple[APIKey, str | None]:
    existing = APIKey.objects.filter(name=DEMO_KEY_NAME).order_by("created").first()
    if existing is not None:
        return existing, None
    created, key = APIKey.objects.create_key(name=DEMO_KEY_NAME)
    assert isinstance(created, APIKey)
    return created, key


def _demo_players(names, *, is_bot: bool) -> tuple[list[Player], int]:
    """The demo players of ``names`` (``demo.<name>``), created where missing; and how many
    were created."""
    players, created = [], 0
    for name in names:
        username = f"demo.{name.lower()}"
        player = Player.objects.filter(username=username).first()
        if player is None:
            # The pages mark a bot as such: its name needs no marker of its own.
            player = player_create(username=username, display_name=name, is_bot=is_bot)
            created += 1
        players.append(player)
    return players, created


def _random_seats(rng, humans, bots, mode) -> list[Player]:
    """Four players for a match: humans, with a bot in one seat of some ranked matches and of
    every room match (bots carry no cups, KORT_RULES §7)."""
    bot_seats = 1 if mode is Mode.ROOM or rng.random() < 0.2 else 0
    seated = rng.sample(humans, 4 - bot_seats) + rng.sample(bots, bot_seats)
    rng.shuffle(seated)
    return seated

"""Time of the players' pages against the API reads they are built on (API.md "Players' pages").

Run from the repository root, with no arguments::

    python -m bench.pages

It builds a ladder on a throwaway database of its own: a SQLite file in a temporary folder, or,
when ``DATABASE_URL`` names a PostgreSQL server, a test database on that server (``test_`` and
the database's name), dropped at the end. The ladder: a few thousand players written in bulk
straight to the tables (the leaderboard reads only their cups and the time of their last
change), and one player with many ranked and room matches reported through the services and
finalized in-process, plus a room match whose Bavan vote stays open.

Each page and the API reads it is built on are requested in turn, many times, through Django's
test client; it prints
one line per page, ``page NAME page_ms api_ms ratio``, where ``page_ms`` is the page's median
time, ``api_ms`` the sum of the median times of the API reads the page is built on and
``ratio`` the first over the second; then ``worst ratio R``.

``python -m bench.pages --gunicorn`` times the pages instead as a browser loads them, from
gunicorn with debug off, for a player with 100,000 matches on PostgreSQL (``bench.page_loads``).
"""

from __future__ import annotations

import gc
import os
import random
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

if __name__ == "__main__" and sys.argv[1:] == ["--gunicorn"]:  # before this bench's settings
    from bench.page_loads import main as page_loads

    sys.exit(page_loads())

# The bench's own database, tasks in-process, debug off, no request rates (the API's reads are
# requested thousands of times a minute); a vote that stays open while timed.
_WORKDIR = tempfile.TemporaryDirectory(prefix="kort-bench-pages-")
if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
    os.environ["DATABASE_URL"] = f"sqlite:///{Path(_WORKDIR.name) / 'bench.sqlite3'}"
os.environ.pop("CELERY_BROKER_URL", None)
os.environ["DJANGO_DEBUG"] = "false"
os.environ["KORT_BAVAN_VOTE_SECONDS"] = "3600"
os.environ["KORT_THROTTLE_ANON"] = "none"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kort_site.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from rest_framework.settings import api_settings  # noqa: E402
from rest_framework_api_key.models import APIKey  # noqa: E402

from matches.kort.rules import Mode  # noqa: E402
from matches.models import Match  # noqa: E402
from matches.reports import RoundReport  # noqa: E402
from matches.services import match_create, round_report  # noqa: E402
from pages.views import HISTORY_PAGE_SIZE  # noqa: E402
from players.models import Player  # noqa: E402
from players.services import player_create  # noqa: E402
from ranking.board import board_build, current_season_number  # noqa: E402
from ranking.demo import random_match_rounds  # noqa: E402
from ranking.selectors import leaderboard_queryset, player_rank  # noqa: E402
from stats.models import PlayerStats  # noqa: E402

BULK_PLAYERS = 5000
STAR_RANKED = 300
STAR_ROOM = 60
PARTNERS = 11
REPETITIONS = 300
WARM_UP = 20
SEED = 11
HOST = "localhost"  # one of the default ALLOWED_HOSTS
LEADERBOARD_ROWS = 50  # a page of the leaderboard, as the pages show it


@contextmanager
def throwaway_database():
    """The bench's database, migrated: the SQLite file set above, or a test database on the
    PostgreSQL server of ``DATABASE_URL``, destroyed on the way out."""
    if connection.vendor == "sqlite":
        call_command("migrate", verbosity=0)
        yield
        return
    name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(name, verbosity=0)


def bulk_players(rng: random.Random) -> None:
    """Players on the current season's leaderboard, written in bulk with their empty
    statistics, and the board's counts built from them."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    season = current_season_number()
    players = []
    for n in range(BULK_PLAYERS):
        cups = rng.randint(-40, 400)
        players.append(
            Player(
                username=f"ladder.{n}",
                display_name=f"Ladder {n}",
                cups=cups,
                best_cups=max(cups, 0) + rng.randint(0, 30),
                cups_changed_at=start + timedelta(seconds=rng.randrange(10**7)),
                board_season=season,
            )
        )
    Player.objects.bulk_create(players, batch_size=1000)
    PlayerStats.objects.bulk_create(
        [
            PlayerStats(player=player)
            for player in Player.objects.filter(username__startswith="ladder.")
        ],
        batch_size=1000,
    )
    board_build(season)


def star_matches(rng: random.Random) -> tuple[Player, int]:
    """One player with many matches, each with three of a few partners; returns the player
    and the ranked match with the most rounds."""
    service_key, _ = APIKey.objects.create_key(name="bench-pages")
    star = player_create(username="star", display_name="Star")
    partners = [player_create(username=f"partner.{n}") for n in range(PARTNERS)]
    modes = [Mode.RANKED] * STAR_RANKED + [Mode.ROOM] * STAR_ROOM
    rng.shuffle(modes)
    longest: int | None = None
    most = 0
    for mode in modes:
        seats = [star.pk, *(p.pk for p in rng.sample(partners, 3))]
        rng.shuffle(seats)
        first = rng.randrange(4)
        rounds = [RoundReport.from_wire(report) for report in random_match_rounds(rng, mode, first)]
        match, _ = match_create(
            service_key=service_key, mode=mode, seats=seats, first_trump_seat=first, rounds=rounds
        )
        if mode is Mode.RANKED and len(rounds) > most:
            longest, most = match.pk, len(rounds)
    star.refresh_from_db()
    assert longest is not None  # the star plays ranked matches
    return star, longest


def open_vote() -> int:
    """A room match whose first round stopped at 7:0 with the vote open; returns its id."""
    seated = Player.objects.filter(username__startswith="partner.").order_by("pk")[:4]
    match, _ = match_create(
        service_key=None, mode=Mode.ROOM, seats=[p.pk for p in seated], first_trump_seat=0
    )
    round_report(
        match_id=match.pk,
        report=RoundReport.from_wire(
            {"trump_seat": 0, "tricks": {"A": 7, "B": 0}, "bavan": "vote"}
        ),
    )
    return match.pk


def medians_ms(client: Client, paths: list[str]) -> list[float]:
    """The median time of ``GET`` of each path, in milliseconds, after a warm-up. The paths
    are requested in turn, so a change in the machine's load touches them alike."""
    times: list[list[float]] = [[] for _ in paths]
    for n in range(WARM_UP + REPETITIONS):
        for path, taken in zip(paths, times, strict=True):
            start = time.perf_counter()
            response = client.get(path)
            elapsed = time.perf_counter() - start
            if response.status_code != 200:
                raise RuntimeError(f"{path}: {response.status_code}")
            if n >= WARM_UP:
                taken.append(elapsed * 1000)
    return [statistics.median(taken) for taken in times]


def history_cursor(client: Client, path: str, query: str, pages: int) -> str:
    """The cursor that the API's history ``path`` with ``query`` gives after ``pages`` pages of
    ``HISTORY_PAGE_SIZE`` matches, through its ``next`` links: the player's page and the API
    read the history from the same place with it."""
    link = f"{path}?{query}&page_size={HISTORY_PAGE_SIZE}"
    for _ in range(pages):
        link = client.get(link).json()["next"]
    return parse_qs(urlsplit(link).query)["cursor"][0]


def pages_and_reads(
    client: Client, star: Player, longest: int, voting: int
) -> dict[str, tuple[str, list[str]]]:
    """Each page and the API reads it is built on."""
    deep_offset = (leaderboard_queryset().count() // 2 // LEADERBOARD_ROWS) * LEADERBOARD_ROWS
    middle = leaderboard_queryset()[deep_offset + 7]
    rank = player_rank(middle)
    assert rank is not None  # a row of the leaderboard has a rank
    found_offset = (rank - 1) // LEADERBOARD_ROWS * LEADERBOARD_ROWS
    board = f"/api/v1/leaderboard/?limit={LEADERBOARD_ROWS}"
    player = f"/api/v1/players/{star.pk}/"
    history = f"{player}matches/"
    won = "mode=ranked&result=won"
    filtered = f"{won}&cursor={history_cursor(client, history, won, 1)}"
    # deep in the history, where the API's page of the same cursor is still a whole one
    api_page = api_settings.PAGE_SIZE
    assert api_page is not None  # the API pages its lists (settings.REST_FRAMEWORK)
    deep_pages = (STAR_RANKED + STAR_ROOM - api_page) // HISTORY_PAGE_SIZE
    deep = f"cursor={history_cursor(client, history, '', deep_pages)}"
    return {
        "leaderboard": ("/en/", [f"{board}&offset=0"]),
        "leaderboard-deep": (
            f"/ru/?page={deep_offset // LEADERBOARD_ROWS + 1}",
            [f"{board}&offset={deep_offset}"],
        ),
        "leaderboard-search": (
            f"/en/?q={middle.username}",
            [f"/api/v1/leaderboard/around/{middle.pk}/?radius=0", f"{board}&offset={found_offset}"],
        ),
        "player": (f"/en/players/{star.pk}/", [player, f"{player}stats/", history]),
        "player-filtered": (
            f"/ru/players/{star.pk}/?{filtered}",
            [player, f"{player}stats/", f"{history}?{filtered}"],
        ),
        "player-deep": (
            f"/en/players/{star.pk}/?{deep}",
            [player, f"{player}stats/", f"{history}?{deep}"],
        ),
        "match": (f"/en/matches/{longest}/", [f"/api/v1/matches/{longest}/"]),
        "match-vote": (
            f"/ru/matches/{voting}/",
            [f"/api/v1/matches/{voting}/", f"/api/v1/matches/{voting}/rounds/1/vote/"],
        ),
    }


def main() -> int:
    rng = random.Random(SEED)
    with throwaway_database():
        bulk_players(rng)
        star, longest = star_matches(rng)
        voting = open_vote()
        matches = Match.objects.filter(seats__player=star).count()
        print(
            f"database: {connection.vendor}; {Player.objects.count()} players, "
            f"{leaderboard_queryset().count()} on the leaderboard; the star played {matches} "
            f"matches; medians of {REPETITIONS} requests"
        )
        # The objects of the build are no garbage of the service's: the collector leaves them be.
        gc.collect()
        gc.freeze()
        client = Client(HTTP_HOST=HOST)
        worst = 0.0
        for name, (page, reads) in pages_and_reads(client, star, longest, voting).items():
            page_ms, *read_ms = medians_ms(client, [page, *reads])
            api_ms = sum(read_ms)
            ratio = page_ms / api_ms
            worst = max(worst, ratio)
            print(f"page {name} {page_ms:.2f} {api_ms:.2f} {ratio:.2f}")
        print(f"worst ratio {worst:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

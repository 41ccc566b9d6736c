"""What the full record (``"play"``) costs a round report through the API.

Run from the repository root on a database that ``manage.py migrate`` has set up (the configured
one: ``DATABASE_URL``, else the embedded SQLite file ``db.sqlite3``)::

    python bench/play_reports.py [--matches 40] [--repeats 3]

The same room matches (to 7 wins) of seeded bot rounds, callers following KORT_RULES §5, are
reported round by round with ``POST /api/v1/matches/{id}/rounds/`` through Django's test client,
in-process: once as summaries (``trump_seat``, ``tricks``, ``bavan``) and once as records
(``trump_seat``, ``play``), the two forms of each match one after the other (the first form
alternates), so both meet the same database load. Only the round reports are timed. Printed per
form: requests per second over all reports, and the mean and median milliseconds per report;
then the replay alone (``replay_record``) for comparison. It writes a service key, four players
and the matches into that database: point it at a throwaway one.
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import sys
import time
from pathlib import Path
from statistics import fmean, median

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kort_site.settings")
django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from rest_framework_api_key.models import APIKey  # noqa: E402

from matches.kort.bots import play_round  # noqa: E402
from matches.kort.replay import replay_record  # noqa: E402
from matches.kort.rules import (  # noqa: E402
    TARGET_WINS,
    BavanDecision,
    Mode,
    Team,
    match_winner,
    next_trump_seat,
)
from players.services import player_create  # noqa: E402

ROOM_TARGET = TARGET_WINS[Mode.ROOM]


def room_match(seed: int) -> list[tuple[dict, dict]]:
    """One room match of bot rounds as ``(summary report, record report)`` pairs.

    The first caller is seat 0; each next caller is the one §5 gives; Bavans are always played.
    """
    rounds: list[tuple[dict, dict]] = []
    wins, trump_seat = dict.fromkeys(Team, 0), 0
    while match_winner(wins, ROOM_TARGET) is None:
        record = play_round(seed * 1000 + len(rounds), trump_seat, BavanDecision.GO)
        replay = replay_record(record, trump_seat)
        a, b = replay.tricks
        summary = {"trump_seat": trump_seat, "tricks": {"A": a, "B": b}, "bavan": replay.bavan}
        rounds.append((summary, {"trump_seat": trump_seat, "play": record}))
        result = replay.outcome
        assert result is not None  # a Bavan is played on, so every round ends
        wins[result.winner] += result.wins_awarded
        trump_seat = next_trump_seat(trump_seat, result)
    return rounds


def report_match(client: Client, seats: list[int], rounds, form: int) -> list[float]:
    """Report one match in ``form`` (0 summaries, 1 records); the seconds of each report."""
    body = {"mode": "room", "seats": seats, "first_trump_seat": 0}
    match = client.post("/api/v1/matches/", body, content_type="application/json").json()
    path = f"/api/v1/matches/{match['id']}/rounds/"
    seconds = []
    for number, pair in enumerate(rounds, start=1):
        report = {"number": number, **pair[form]}
        start = time.perf_counter()
        response = client.post(path, report, content_type="application/json")
        seconds.append(time.perf_counter() - start)
        if response.status_code != 201:
            raise SystemExit(f"round {number}: {response.status_code} {response.content!r}")
    return seconds


def replay_seconds(matches) -> float:
    start = time.perf_counter()
    for rounds in matches:
        for _, report in rounds:
            replay_record(report["play"], report["trump_seat"])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=40, help="room matches per pass")
    parser.add_argument("--repeats", type=int, default=3, help="passes of each form")
    args = parser.parse_args()
    logging.getLogger("celery").setLevel(logging.WARNING)  # a line per finalization otherwise

    matches = [room_match(seed) for seed in range(args.matches)]
    _, key = APIKey.objects.create_key(name=f"bench-{secrets.token_hex(3)}")
    client = Client(HTTP_HOST="localhost", headers={"authorization": f"Api-Key {key}"})
    run = secrets.token_hex(3)
    seats = [player_create(username=f"bench.{run}.{seat}").pk for seat in range(4)]

    timed: tuple[list[float], list[float]] = ([], [])
    for _ in range(args.repeats):
        for index, rounds in enumerate(matches):
            for form in (index % 2, 1 - index % 2):
                timed[form].extend(report_match(client, seats, rounds, form))
    reports = sum(map(len, matches))
    replay_ms = replay_seconds(matches) / reports * 1e3

    print(f"database: {connection.vendor} ({connection.settings_dict['NAME']})")
    print(f"{args.matches} room matches, {reports} rounds; each in both forms {args.repeats} times")
    print(f"{'':>10}  {'requests/s':>10} {'mean ms':>8} {'median ms':>9}")
    for form, name in enumerate(("summary", "with play")):
        seconds = timed[form]
        mean_ms, median_ms = fmean(seconds) * 1e3, median(seconds) * 1e3
        print(f"{name:>10}: {len(seconds) / sum(seconds):10,.0f} {mean_ms:8.2f} {median_ms:9.2f}")
    extra = (fmean(timed[1]) - fmean(timed[0])) * 1e3
    print(f"play adds {extra:+.2f} ms per report (mean); the replay alone: {replay_ms:.3f} ms")


if __name__ == "__main__":
    main()

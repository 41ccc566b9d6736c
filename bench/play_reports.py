"""What the full record (``"play"``) costs a round report through the API.

Run from the repository root on a database that ``manage.py migrate`` has set up (the configured
one: ``DATABASE_URL``, else the embedded SQLite file ``db.sqlite3``)::

    python bench/play_reports.py [--matches 40] [--repeats 3]

The same room matches (to 7 wins) of seeded bot rounds, callers following KORT_RULES §5, are
reported round by round with ``POST /api/v1/matches/{id}/rounds/`` through Django's test client,
in-process: once as summaries (``trump_seat``, ``tricks``, ``bavan``) and once as records
(``trump_seat``, ``play``). Only the round reports are timed; the best of ``--repeats`` passes
of each form is printed as requests per second and milliseconds per report, with the replay
alone (``replay_record``) for comparison. It writes a service key, four players and the matches
into that database: point it at a throwaway one.
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import sys
import time
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kort_site.settings")
django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from rest_framework_api_key.models import APIKey  # noqa: E402

from matches.kort.bots import play_round  # noqa: E402
from matches.kort.replay import replay_record  # noqa: E402
from matches.kort.rules import TARGET_WINS, BavanDecision, Mode, next_trump_seat  # noqa: E402
from ranking.services import player_create  # noqa: E402

ROOM_TARGET = TARGET_WINS[Mode.ROOM]


def room_match(seed: int) -> list[tuple[dict, dict]]:
    """One room match of bot rounds as ``(summary report, record report)`` pairs.

    The first caller is seat 0; each next caller is the one §5 gives; Bavans are always played.
    """
    wins, trump_seat, rounds = [0, 0], 0, []
    while max(wins) < ROOM_TARGET:
        record = play_round(seed * 1000 + len(rounds), trump_seat, BavanDecision.GO)
        replay = replay_record(record, trump_seat)
        a, b = replay.tricks
        summary = {"trump_seat": trump_seat, "tricks": {"A": a, "B": b}, "bavan": replay.bavan}
        rounds.append((summary, {"trump_seat": trump_seat, "play": record}))
        result = replay.outcome
        wins["AB".index(result.winner)] += result.wins_awarded
        trump_seat = next_trump_seat(trump_seat, result)
    return rounds


def report_pass(client: Client, seats: list[int], matches, form: int) -> tuple[float, int]:
    """Report every match once in ``form`` (0 summaries, 1 records); ``(seconds, reports)``."""
    elapsed, reports = 0.0, 0
    for rounds in matches:
        body = {"mode": "room", "seats": seats, "first_trump_seat": 0}
        match = client.post("/api/v1/matches/", body, content_type="application/json").json()
        for number, pair in enumerate(rounds, start=1):
            path = f"/api/v1/matches/{match['id']}/rounds/"
            report = {"number": number, **pair[form]}
            start = time.perf_counter()
            response = client.post(path, report, content_type="application/json")
            elapsed += time.perf_counter() - start
            if response.status_code != 201:
                raise SystemExit(f"round {number}: {response.status_code} {response.content!r}")
            reports += 1
    return elapsed, reports


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

    best = [float("inf"), float("inf")]
    for _ in range(args.repeats):
        for form in (0, 1):
            seconds, reports = report_pass(client, seats, matches, form)
            best[form] = min(best[form], seconds / reports)
    replay_each = replay_seconds(matches) / reports

    print(f"database: {connection.vendor} ({connection.settings_dict['NAME']})")
    print(f"{args.matches} room matches, {reports} round reports per pass, best of {args.repeats}")
    for form, name in enumerate(("summary", "with play")):
        print(f"{name:>10}: {1 / best[form]:8,.0f} requests/s {best[form] * 1e3:8.2f} ms/report")
    extra = (best[1] - best[0]) * 1e3
    print(f"{'play adds':>10}: {extra:+.2f} ms/report ({best[1] / best[0]:.2f}x), of which the")
    print(f"{'':>10}  replay alone is {replay_each * 1e3:.3f} ms/report")


if __name__ == "__main__":
    main()

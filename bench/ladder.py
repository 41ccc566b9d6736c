"""Throughput of the KORT ladder: the pure rules, matches end to end, leaderboard reads.

Run from the repository root, on a database that ``manage.py migrate`` has set up, with the
service's own settings (``DJANGO_SETTINGS_MODULE`` defaults to ``kort_site.settings``)::

    python -m bench.ladder [--rounds 200000] [--matches 200] [--reads 300] [--players 40]

- Embedded default (no environment): SQLite ``db.sqlite3``; a match is finalized in-process
  when its last round commits.
- ``DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://...``: finalization goes to the
  Celery worker(s), which must be running with the same environment
  (``celery -A kort_site worker -c 2``); the bench polls the database until every match it
  reported is finalized.

It prints:

(a) rounds/s of the pure rules: ``round_outcome`` + ``next_trump_seat`` over pre-generated
    legal summaries (KORT_RULES §2, §5);
(b) matches/s through the HTTP API (Django's test client, in-process): ``POST /api/v1/matches/``
    then each round with ``POST /api/v1/matches/{id}/rounds/``, as reported and as finalized;
(c) leaderboard reads/s: ``GET /api/v1/leaderboard/?limit=100`` and
    ``GET /api/v1/leaderboard/around/{id}/``.

It writes a service key, players (``bench.<run>.<n>``) and ranked matches into the configured
database: point it at a throwaway one. Exit status 1 if a request fails or the matches are not
finalized within ``--timeout`` seconds.
"""

import argparse
import logging
import os
import random
import secrets
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kort_site.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from rest_framework_api_key.models import APIKey  # noqa: E402

from matches.kort.rules import Mode, next_trump_seat, round_outcome  # noqa: E402
from matches.models import Match, MatchStatus  # noqa: E402
from ranking.board import board_players, current_season_number  # noqa: E402
from ranking.demo import random_match_rounds  # noqa: E402

HOST = "localhost"  # one of the default ALLOWED_HOSTS
POLL_SECONDS = 0.05


class BenchFailed(Exception):
    """A request did not answer as the contract says, or finalization took too long."""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200_000, help="rounds for (a)")
    parser.add_argument("--matches", type=int, default=200, help="ranked matches for (b)")
    parser.add_argument("--reads", type=int, default=300, help="requests of each read in (c)")
    parser.add_argument("--players", type=int, default=40, help="players seated in (b)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait in (b)")
    return parser.parse_args()


def random_summaries(rng: random.Random, count: int) -> list[tuple]:
    """``count`` legal round summaries ``(trump_seat, tricks, bavan)`` from random matches."""
    summaries: list[tuple] = []
    while len(summaries) < count:
        for report in random_match_rounds(rng, Mode.ROOM, rng.randrange(4)):
            summaries.append((report["trump_seat"], report["tricks"], report.get("bavan")))
    return summaries[:count]


def rules_rate(summaries: list[tuple]) -> float:
    """(a) Rounds per second evaluated by the pure rules module."""
    start = time.perf_counter()
    for trump_seat, tricks, bavan in summaries:
        next_trump_seat(trump_seat, round_outcome(trump_seat, tricks, bavan))
    return len(summaries) / (time.perf_counter() - start)


def expect(response, status: int) -> dict:
    if response.status_code != status:
        raise BenchFailed(
            f"{response.request['PATH_INFO']}: {response.status_code} {response.content!r}"
        )
    return response.json()


def post(client: Client, path: str, body: dict) -> dict:
    """POST ``body`` as JSON; the answer's body, which must come with a 201."""
    return expect(client.post(path, body, content_type="application/json"), 201)


def service_client() -> Client:
    _, key = APIKey.objects.create_key(name=f"bench-{secrets.token_hex(3)}")
    return Client(HTTP_HOST=HOST, headers={"authorization": f"Api-Key {key}"})


def create_players(service: Client, count: int) -> list[int]:
    run = secrets.token_hex(3)
    return [
        post(service, "/api/v1/players/", {"username": f"bench.{run}.{n}"})["id"]
        for n in range(count)
    ]


def report_match(service: Client, seats: list[int], first_trump_seat: int, rounds) -> int:
    body = {"mode": "ranked", "seats": seats, "first_trump_seat": first_trump_seat}
    match_id = post(service, "/api/v1/matches/", body)["id"]
    for number, report in enumerate(rounds, start=1):
        post(service, f"/api/v1/matches/{match_id}/rounds/", {"number": number, **report})
    return match_id


def wait_until_finalized(match_ids: list[int], timeout: float) -> None:
    deadline = time.perf_counter() + timeout
    pending = Match.objects.filter(pk__in=match_ids).exclude(status=MatchStatus.FINALIZED)
    while pending.exists():
        if time.perf_counter() > deadline:
            raise BenchFailed(f"{pending.count()} matches not finalized after {timeout} s")
        time.sleep(POLL_SECONDS)


def matches_rates(args, rng: random.Random) -> None:
    """(b) Ranked matches reported round by round through the API, and finalized."""
    service = service_client()
    players = create_players(service, args.players)
    plan = []
    for _ in range(args.matches):
        first_trump_seat = rng.randrange(4)
        rounds = random_match_rounds(rng, Mode.RANKED, first_trump_seat)
        plan.append((rng.sample(players, 4), first_trump_seat, rounds))
    requests = sum(1 + len(rounds) for _, _, rounds in plan)
    start = time.perf_counter()
    match_ids = [report_match(service, *match) for match in plan]
    reported = time.perf_counter() - start
    wait_until_finalized(match_ids, args.timeout)
    finalized = time.perf_counter() - start
    print(
        f"(b) reported:  {args.matches / reported:,.1f} matches/s "
        f"({requests / reported:,.0f} requests/s, {requests - args.matches} rounds)"
    )
    print(
        f"    finalized: {args.matches / finalized:,.1f} matches/s end to end "
        f"(all {args.matches} finalized {finalized:.2f} s after the first request)"
    )


def reads_rate(client: Client, paths: list[str]) -> float:
    start = time.perf_counter()
    for path in paths:
        expect(client.get(path), 200)
    return len(paths) / (time.perf_counter() - start)


def leaderboard_rates(args, rng: random.Random) -> None:
    """(c) Leaderboard reads per second: the top 100, and around a random listed player."""
    client = Client(HTTP_HOST=HOST)
    listed = list(board_players(current_season_number()).values_list("pk", flat=True))
    top = ["/api/v1/leaderboard/?limit=100"] * args.reads
    around = [f"/api/v1/leaderboard/around/{rng.choice(listed)}/" for _ in range(args.reads)]
    print(f"(c) leaderboard top 100: {reads_rate(client, top):,.0f} reads/s ({len(listed)} listed)")
    print(f"    around a player:     {reads_rate(client, around):,.0f} reads/s (radius 5)")


def main() -> int:
    args = parse_args()
    rng = random.Random(args.seed)
    # Each task run logs a line at INFO; the figures are the output here.
    logging.getLogger("celery").setLevel(logging.WARNING)
    tasks = "a Celery worker" if settings.CELERY_BROKER_URL else "in-process"
    print(f"database: {connection.vendor} ({connection.settings_dict['NAME']}); tasks: {tasks}")
    summaries = random_summaries(rng, args.rounds)
    print(f"(a) rules: {rules_rate(summaries):,.0f} rounds/s (round_outcome + next_trump_seat)")
    try:
        matches_rates(args, rng)
        leaderboard_rates(args, rng)
    except BenchFailed as failure:
        print(f"failed: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

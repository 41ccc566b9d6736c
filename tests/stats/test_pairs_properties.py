"""The figures of KORT_RULES §12 kept by the ladder's write path equal a recomputation from the
players' histories as the API serves them, after random matches (ranked and room, bots among
the players) finalized in any order and random voids between them; and two finalizations
sharing a player at once on PostgreSQL neither deadlock nor lose a count."""

import random
from collections import defaultdict

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework.test import APIClient
from rest_framework_api_key.models import APIKey

from matches.kort.rules import Mode, streaks_of, team_of
from matches.reports import RoundReport
from matches.services import match_create
from players.services import player_create
from ranking.demo import random_match_rounds
from ranking.services import match_finalize, match_void
from tests.api_steps import PLAYERS, ids_of, match_start, round_body, rounds_report
from tests.concurrency import at_once

MODES = (None, "ranked", "room")


def history_of(client, player_id: int) -> list[dict]:
    """Every match of the player's history, following the pages' links."""
    rows, url = [], f"{PLAYERS}{player_id}/matches/?page_size=100"
    while url:
        page = client.get(url).json()
        rows += page["results"]
        url = page["next"]
    return rows


def table_of(client, player_id: int, part: str, mode: str | None) -> dict[int, tuple]:
    """A partners or opponents table, every page, as ``{other: (matches, won, cups)}``; the
    rows in the table's order (most matches first, then by id) or the test fails."""
    query = "" if mode is None else f"&mode={mode}"
    rows, url = [], f"{PLAYERS}{player_id}/{part}/?page_size=2{query}"
    while url:
        page = client.get(url).json()
        rows += page["results"]
        url = page["next"]
    order = [(-r["matches"], r["player"]["id"]) for r in rows]
    assert order == sorted(order)
    return {r["player"]["id"]: (r["matches"], r["won"], r["cups"]) for r in rows}


def recomputed(history: list[dict], player_id: int, mode: str | None):
    """Partners, opponents and streaks from the history: its finalized (not void) matches."""
    counted = [m for m in history if m["status"] == "finalized" and mode in (None, m["mode"])]
    tables: dict[str, dict] = {"partners": defaultdict(lambda: (0, 0, 0)), "opponents": {}}
    tables["opponents"] = defaultdict(lambda: (0, 0, 0))
    results = []
    for match in sorted(counted, key=lambda m: (m["completed_at"], m["id"])):
        seat = match["seats"].index(player_id)
        won = match["winner"] == team_of(seat)
        cups = (match["cups"] or {}).get(str(player_id), 0)
        results.append(won)
        for other_seat, other in enumerate(match["seats"]):
            if other != player_id:
                part = "partners" if other_seat % 2 == seat % 2 else "opponents"
                matches, wins, total = tables[part][other]
                tables[part][other] = (matches + 1, wins + won, total + cups)
    return {part: dict(rows) for part, rows in tables.items()}, streaks_of(results)


steps = st.lists(
    st.tuples(st.sampled_from([Mode.RANKED, Mode.ROOM]), st.integers(0, 2**32)),
    min_size=1,
    max_size=7,
)


@pytest.mark.django_db
@hypothesis_settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matches=steps, seed=st.integers(0, 2**16))
def test_partners_and_streaks_equal_the_history_after_finalizations_and_voids(matches, seed):
    rng = random.Random(seed)
    client = APIClient()
    with transaction.atomic():
        key, _ = APIKey.objects.create_key(name="table")
        humans = [player_create(username=f"p{n}-{seed}") for n in range(5)]
        bot = player_create(username=f"rook-{seed}", is_bot=True)
        created = []
        for mode, match_seed in matches:  # completed in this order, none finalized yet
            table_rng = random.Random(match_seed)
            seats = table_rng.sample([*humans, bot], 4)
            first = table_rng.randrange(4)
            reports = random_match_rounds(table_rng, mode, first)
            match, _ = match_create(
                service_key=key,
                mode=mode,
                seats=[p.pk for p in seats],
                first_trump_seat=first,
                rounds=[RoundReport.from_wire(report) for report in reports],
            )
            created.append(match.pk)
        rng.shuffle(created)  # finalized in any order, some voided between
        finalized = []
        for match_id in created:
            assert match_finalize(match_id)
            finalized.append(match_id)
            if rng.random() < 0.3:
                match_void(finalized.pop(rng.randrange(len(finalized))), "a broken table")

        for player in humans:
            history = history_of(client, player.pk)
            for mode in MODES:
                tables, streaks = recomputed(history, player.pk, mode)
                for part in ("partners", "opponents"):
                    assert table_of(client, player.pk, part, mode) == tables[part]
                query = "" if mode is None else f"?mode={mode}"
                stats = client.get(f"{PLAYERS}{player.pk}/stats/{query}").json()
                assert stats["streaks"] == {
                    "win": {"current": streaks.win_current, "best": streaks.win_best},
                    "loss": {"current": streaks.loss_current, "best": streaks.loss_best},
                }
        transaction.set_rollback(True)


@pytest.fixture
def completed_only(monkeypatch):
    """Completed matches stay completed: the queued finalization is recorded, not run."""
    queued: list[int] = []
    monkeypatch.setattr(
        "ranking.tasks.finalize_match.apply_async", lambda args: queued.extend(args)
    )
    return queued


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_finalizations_sharing_a_player_at_once(service, api, cast, completed_only):
    """Amir sits in both matches, with different partners and opponents: the two writers
    queue on his row and each adds its figures (no deadlock, nothing lost)."""
    amir, bita, cyrus, dara = ids_of(cast)
    more = [service.post(PLAYERS, {"username": name}).data["id"] for name in ("eli", "farah")]
    first = match_start(service, [amir, bita, cyrus, dara])
    second = match_start(service, [amir, dara, more[0], more[1]])
    for match_id in (first, second):  # A's Kort: Amir's team wins both, +10 each (§7)
        rounds_report(service, match_id, [round_body(0, 7, 0, "stop")])
    assert completed_only == [first, second]

    results = at_once([lambda: match_finalize(first), lambda: match_finalize(second)] * 3)

    assert sorted(results) == [False] * 4 + [True] * 2
    opponents = api.get(f"{PLAYERS}{amir}/opponents/").data["results"]
    assert [(r["player"]["id"], r["matches"], r["won"], r["cups"]) for r in opponents] == [
        (dara, 2, 2, 20),
        (bita, 1, 1, 10),
        (more[1], 1, 1, 10),
    ]
    streaks = api.get(f"{PLAYERS}{amir}/stats/").data["streaks"]
    assert streaks == {"win": {"current": 2, "best": 2}, "loss": {"current": 0, "best": 0}}

"""Finalization applies a match's cups and statistics exactly once (KORT_RULES §7), whether it
runs again later or twice at the same moment."""

import threading
import time

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from matches.models import Match
from players.models import Player
from players.services import player_create
from ranking.ladder import players_locked
from ranking.models import CupChange
from ranking.services import match_finalize
from ranking.tasks import finalize_match
from stats.models import PlayerStats
from tests.api_steps import ids_of, match_play, match_read, match_start, round_body, team_cups
from tests.concurrency import at_once


def ladder_state(player_ids) -> dict:
    """Everything finalization writes, as plain values."""
    return {
        "ledger": sorted(CupChange.objects.values_list("match_id", "player_id", "delta")),
        "players": list(
            Player.objects.filter(pk__in=player_ids)
            .order_by("pk")
            .values_list("cups", "best_cups", "cups_changed_at")
        ),
        "stats": list(PlayerStats.objects.filter(player_id__in=player_ids).order_by("pk").values()),
        "matches": list(Match.objects.order_by("pk").values("status", "finalized_at")),
    }


def test_finalizing_again_changes_nothing(service, api, cast):
    seats = ids_of(cast)
    match_id = match_play(service, seats, [round_body(0, 7, 0, "stop")])  # A's Kort: +10 / -5
    match = match_read(api, match_id)
    assert match["status"] == "finalized"
    state = ladder_state(seats)

    assert match_finalize(match_id) is False
    assert finalize_match(match_id) is False
    assert finalize_match.delay(match_id).get() is False

    assert ladder_state(seats) == state
    assert match_read(api, match_id) == match
    assert len(state["ledger"]) == 4
    assert [p.cups for p in Player.objects.filter(pk__in=seats).order_by("pk")] == [10, -5, 10, -5]


def test_a_match_still_in_progress_is_not_finalized(service, cast):
    seats = ids_of(cast)
    match_id = match_play(service, seats, [round_body(0, 7, 3)])  # 1:0 of 3
    state = ladder_state(seats)

    assert match_finalize(match_id) is False
    assert ladder_state(seats) == state


# --- concurrent finalization (PostgreSQL row locks) -------------------------------------------


@pytest.fixture
def completed_only(monkeypatch):
    """Completed matches stay completed: the queued finalization is recorded, not run."""
    queued = []
    monkeypatch.setattr(finalize_match, "apply_async", lambda args: queued.extend(args))
    return queued


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_finalize_one_match_once(service, api, cast, completed_only):
    seats = ids_of(cast)
    match_id = match_play(service, seats, [round_body(0, 7, 0, "stop")])  # A's Kort: +10 / -5
    assert completed_only == [match_id]
    assert match_read(api, match_id)["status"] == "completed"

    results = at_once([lambda: match_finalize(match_id)] * 2)

    assert sorted(results) == [False, True]
    assert CupChange.objects.filter(match_id=match_id).count() == 4
    assert match_read(api, match_id)["cups"] == team_cups(seats, +10, -5)
    players = Player.objects.filter(pk__in=seats).order_by("pk")
    assert [(p.cups, p.best_cups) for p in players] == [(10, 10), (-5, 0), (10, 10), (-5, 0)]
    assert [s.matches_played for s in PlayerStats.objects.filter(player_id__in=seats)] == [1] * 4


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_matches_of_the_same_players_finalized_at_once(service, cast, completed_only):
    amir, bita, cyrus, dara = ids_of(cast)
    # Seat 0's Kort in both: Amir and Cyrus win the first (+10, the others -5); Bita and Dara,
    # on team A of the second, win it (+10, Amir and Cyrus -5). Each player ends on +5.
    first = match_play(service, [amir, bita, cyrus, dara], [round_body(0, 7, 0, "stop")])
    second = match_play(service, [bita, amir, dara, cyrus], [round_body(0, 7, 0, "stop")])
    assert completed_only == [first, second]

    results = at_once([lambda: match_finalize(first), lambda: match_finalize(second)] * 2)

    assert sorted(results[0::2]) == sorted(results[1::2]) == [False, True]
    assert CupChange.objects.count() == 8
    cups = dict(Player.objects.values_list("pk", "cups"))
    assert [cups[pid] for pid in (amir, bita, cyrus, dara)] == [5, 5, 5, 5]
    # The best total depends on which match came first: 10 for the team that won it, 5 for
    # the other (-5 then +10); partners always share it.
    best = dict(Player.objects.values_list("pk", "best_cups"))
    assert best[amir] == best[cyrus]
    assert best[bita] == best[dara]
    assert {best[amir], best[bita]} == {5, 10}
    assert set(PlayerStats.objects.values_list("matches_played", "matches_won")) == {(2, 1)}


def test_finalization_costs_the_same_statements_whatever_the_players(service, cast, monkeypatch):
    """A ranked match's finalization is a fixed number of statements: the players' cups in
    one update, their statistics in one statement per table (an insert adding to the rows it
    meets, or an update; no statement per player or team), the figures of §12 in one
    statement per table and one read of the streaks."""
    monkeypatch.setattr("matches.rounds.queue_on_commit", lambda *args, **kwargs: None)
    bot = player_create(username="bot-seat", is_bot=True)
    counts = []
    for seats in (ids_of(cast), [cast[0].id, cast[1].id, cast[2].id, bot.id]):
        match_id = match_start(service, seats)
        body = {"number": 1, **round_body(0, 7, 0, "stop")}
        assert service.client.post(f"/api/v1/matches/{match_id}/rounds/", body).status_code == 201
        with CaptureQueriesContext(connection) as captured:
            assert match_finalize(match_id)
        counts.append(
            len(
                [
                    q
                    for q in captured.captured_queries
                    if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))
                ]
            )
        )

    # Four humans, then three humans and a bot: the same statements (the first builds the
    # season's board counts; the second match's board already has them). Four of them are
    # the figures per mode and of KORT_RULES §12: the mode's counts, the pairs, the streaks
    # read and written. On PostgreSQL the writes of the ledger, the totals, the statistics,
    # the §12 figures, the board's counts, the match's time and the finalized matches' count
    # go to the server in one round trip (bulk.updates.run): 19 statements are 8 round trips.
    batched = 11 if connection.vendor == "postgresql" else 0
    assert counts[1] <= counts[0] <= 24 - batched, counts
    assert counts[1] <= 19 - batched, counts


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_match_seats_players_whose_finalization_holds_them_without_waiting(service, cast):
    """A finalization locks its players' rows ``FOR NO KEY UPDATE``: the seats of a new match
    (their foreign keys take ``KEY SHARE`` locks on the same rows) do not wait for it. Were
    they to wait, the two could deadlock: seats are written in seat order, a finalization
    locks its players in id order."""
    held, released = threading.Event(), threading.Event()

    def finalization_holding_the_players():
        with transaction.atomic():
            players_locked(ids_of(cast))
            held.set()
            released.wait(10)

    def match_seating_them():
        assert held.wait(5)
        started = time.monotonic()
        match_start(service, list(reversed(ids_of(cast))))
        took = time.monotonic() - started
        released.set()
        return took

    _, took = at_once([finalization_holding_the_players, match_seating_them])

    assert took < 5

"""Seasons arrive on a database with history (KORT_RULES §10): season 1 starts when the earliest
stored match was created and lasts a calendar month, every match already over belongs to it,
each ledger row becomes a match's cups of season 1 with its running total (replayed per player
in time order), and the statistics so far become season 1's. Not marked ``postgres``: it runs
on SQLite, and on PostgreSQL when ``DATABASE_URL`` names one."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from matches.models import Match
from ranking.models import CupChange
from seasons.dates import one_month_after
from seasons.models import Season
from stats.models import SeasonStats
from tests.migrations import migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE_SEASONS = {
    "seasons": None,
    "matches": "0008_seat_player_in_players_app",
    "ranking": "0005_board_counts",
    "stats": "0002_playerstats_player_in_players_app",
}


@pytest.fixture(autouse=True)
def _latest_afterwards():
    yield
    migrate({})


def history_before_seasons(apps) -> dict:
    """Two finalized ranked matches of amir and bita (and a bot), a room match of theirs and a
    match still on, written with the models from before seasons."""
    player = apps.get_model("players", "Player")
    amir = player.objects.create(username="amir", cups=5, best_cups=10)
    bita = player.objects.create(username="bita", cups=5, best_cups=5)
    robo = player.objects.create(username="robo", is_bot=True)
    cyrus = player.objects.create(username="cyrus")
    match_model = apps.get_model("matches", "Match")
    seat_model = apps.get_model("matches", "Seat")
    ledger = apps.get_model("ranking", "CupChange")
    first_created = timezone.now() - timedelta(days=3)

    def match(days_ago, status, winner, seats, mode="ranked"):
        over = status != "in_progress"
        created = match_model.objects.create(
            mode=mode,
            target_wins=3 if mode == "ranked" else 7,
            status=status,
            first_trump_seat=0,
            next_trump_seat=0,
            wins_a=3 if winner == "A" else 0,
            wins_b=3 if winner == "B" else 0,
            winner=winner,
            completed_at=timezone.now() if over else None,
            finalized_at=timezone.now() - timedelta(days=days_ago) if over else None,
        )
        match_model.objects.filter(pk=created.pk).update(
            created_at=first_created + timedelta(days=3 - days_ago)
        )
        for number, seated in enumerate(seats):
            seat_model.objects.create(match=created, seat=number, player=seated)
        return created

    first = match(3, "finalized", "A", [amir, bita, cyrus, robo])
    second = match(2, "finalized", "B", [amir, bita, cyrus, robo])
    match(1, "finalized", "A", [amir, bita, cyrus, robo], mode="room")
    on = match(0, "in_progress", None, [amir, bita, cyrus, robo])
    # Stored out of time order on purpose: the running totals follow the times, not the ids.
    for stored_match, player_row, delta in (
        (second, amir, -5),
        (second, bita, 10),
        (second, cyrus, -5),
        (first, amir, 10),
        (first, bita, -5),
        (first, cyrus, 10),
    ):
        ledger.objects.create(
            match=stored_match, player=player_row, delta=delta, created_at=stored_match.finalized_at
        )
    player.objects.filter(pk=cyrus.pk).update(cups=5, best_cups=10)
    stats = apps.get_model("stats", "PlayerStats")
    for row, won in ((amir, 2), (bita, 1), (cyrus, 1)):
        stats.objects.create(player=row, matches_played=3, matches_won=won, rounds_played=9)
    return {"first_created": first_created, "on": on.pk, "players": (amir.pk, bita.pk, cyrus.pk)}


def test_seasons_keep_every_row_and_fill_them_from_the_history():
    before = history_before_seasons(migrate(BEFORE_SEASONS))

    migrate({})

    season = Season.objects.get()
    assert (season.number, season.status) == (1, "current")
    assert season.starts_at == before["first_created"]
    assert season.ends_at == one_month_after(before["first_created"])
    assert list(Match.objects.order_by("pk").values_list("season", flat=True)) == [1, 1, 1, None]
    amir, bita, cyrus = before["players"]
    rows = CupChange.objects.order_by("player_id", "created_at")
    assert [(r.player_id, r.kind, r.season, r.delta, r.cups_after) for r in rows] == [
        (amir, "match", 1, 10, 10),
        (amir, "match", 1, -5, 5),
        (bita, "match", 1, -5, -5),
        (bita, "match", 1, 10, 5),
        (cyrus, "match", 1, 10, 10),
        (cyrus, "match", 1, -5, 5),
    ]
    season_rows = SeasonStats.objects.filter(season=1).order_by("player_id")
    fields = ("matches_played", "matches_won", "rounds_played", "ranked_played", "ranked_won")
    assert [
        (r.player_id, *(getattr(r, name) for name in fields), r.cups, r.best_cups)
        for r in season_rows
    ] == [
        (amir, 3, 2, 9, 2, 1, 5, 10),
        (bita, 3, 1, 9, 2, 1, 5, 5),
        (cyrus, 3, 1, 9, 2, 1, 5, 10),
    ]


def test_seasons_can_be_undone_and_done_again():
    migrate(BEFORE_SEASONS)
    migrate({})

    assert Season.objects.filter(number=1, status="current").exists()
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, "ranking_cupchange")
    assert {"one_cup_change_per_match_player", "one_reset_per_season_player"} <= set(constraints)

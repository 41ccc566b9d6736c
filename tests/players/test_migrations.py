"""The Player model's move from the ranking app to the players app keeps every row: a database
holding players, matches, seats, cup changes, statistics and a player permission from before
the move is migrated to the latest state and read back through today's models."""

import pytest
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.utils import timezone

from matches.models import Seat
from players.models import Player
from ranking.models import CupChange
from stats.models import PlayerStats
from tests.migrations import migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE_THE_MOVE = {
    "players": None,
    "ranking": "0002_username_unique_ignoring_case",
    "matches": "0006_bavan_vote_opening_play",
    "stats": "0001_initial",
}
"""The last migration of each app concerned before the move (None: the app had none)."""
NAMED_CONSTRAINTS = {
    "bot_has_no_login",
    "best_cups_not_negative",
    "best_cups_is_best",
    "username_unique_ignoring_case",
    "leaderboard_order",
}


@pytest.fixture(autouse=True)
def _latest_afterwards():
    """Leave the test database at the latest migrations, whatever the test did."""
    yield
    migrate({})


def ladder_before_the_move(apps) -> dict:
    """Rows written with the models of the state before the move; returns what they were."""
    player_model = apps.get_model("ranking", "Player")
    user = apps.get_model("auth", "User").objects.create(username="player.amir")
    amir = player_model.objects.create(
        username="amir", display_name="Amir", user=user, cups=10, best_cups=10
    )
    others = [
        player_model.objects.create(username=name, display_name=name.title(), is_bot=bot)
        for name, bot in (("bita", False), ("cyrus", False), ("robo", True))
    ]
    now = timezone.now()
    match = apps.get_model("matches", "Match").objects.create(
        mode="ranked",
        target_wins=3,
        status="finalized",
        first_trump_seat=0,
        next_trump_seat=0,
        wins_a=3,
        winner="A",
        completed_at=now,
        finalized_at=now,
    )
    seats = [amir, *others]
    seat_model = apps.get_model("matches", "Seat")
    for number, player in enumerate(seats):
        seat_model.objects.create(match=match, seat=number, player=player)
    ledger = apps.get_model("ranking", "CupChange")
    for player, delta in ((amir, 10), (others[0], -5), (others[1], 10)):
        ledger.objects.create(match=match, player=player, delta=delta, created_at=now)
    apps.get_model("stats", "PlayerStats").objects.create(
        player=amir, matches_played=1, matches_won=1
    )
    content_type, _ = apps.get_model("contenttypes", "ContentType").objects.get_or_create(
        app_label="ranking", model="player"
    )
    permission, _ = apps.get_model("auth", "Permission").objects.get_or_create(
        content_type=content_type, codename="change_player", defaults={"name": "Can change"}
    )
    group = apps.get_model("auth", "Group").objects.create(name="moderators")
    group.permissions.add(permission)
    user.groups.add(group)
    return {
        "players": [(p.pk, p.username, p.is_bot) for p in seats],
        "seats": [(match.pk, number, p.pk) for number, p in enumerate(seats)],
        "ledger": sorted(ledger.objects.values_list("match_id", "player_id", "delta")),
        "content_type": content_type.pk,
        "login": user.pk,
    }


def test_moving_player_keeps_every_row():
    before = ladder_before_the_move(migrate(BEFORE_THE_MOVE))

    migrate({})

    players = Player.objects.order_by("pk")
    assert [(p.pk, p.username, p.is_bot) for p in players] == before["players"]
    assert Player.objects.get(username="amir").user_id == before["login"]
    seats = Seat.objects.select_related("player").order_by("seat")
    assert [(s.match_id, s.seat, s.player.pk) for s in seats] == before["seats"]
    ledger = CupChange.objects.select_related("player")
    assert sorted((c.match_id, c.player.pk, c.delta) for c in ledger) == before["ledger"]
    stats = PlayerStats.objects.select_related("player").get()
    assert (stats.player.username, stats.matches_played, stats.matches_won) == ("amir", 1, 1)
    assert ContentType.objects.get(app_label="players", model="player").pk == before["content_type"]
    assert Group.objects.get(name="moderators").permissions.get().codename == "change_player"
    assert User.objects.get(pk=before["login"]).has_perm("players.change_player")
    assert Player.objects.create(username="nima").pk > max(pk for pk, _, _ in before["players"])


def test_the_moved_table_keeps_its_named_constraints_and_indexes():
    migrate(BEFORE_THE_MOVE)
    migrate({})

    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, "players_player")
        tables = connection.introspection.table_names(cursor)
    assert set(constraints) >= NAMED_CONSTRAINTS
    assert "ranking_player" not in tables


def test_the_move_can_be_undone_with_its_rows():
    player = Player.objects.create(username="amir")
    content_type, _ = ContentType.objects.get_or_create(app_label="players", model="player")

    apps = migrate(BEFORE_THE_MOVE)

    old = apps.get_model("ranking", "Player").objects.get()
    moved_back = apps.get_model("contenttypes", "ContentType").objects.get(pk=content_type.pk)
    assert (old.pk, old.username) == (player.pk, "amir")
    assert (moved_back.app_label, moved_back.model) == ("ranking", "player")

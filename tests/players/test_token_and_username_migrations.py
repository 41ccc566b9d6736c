"""The migrations of issue-free upgrades (API.md "Conventions", "Players"): DRF's plaintext
tokens are hashed in place and keep working until KORT_PLAYER_TOKEN_DAYS after the migration;
existing usernames get their case-folded form, and names that fold to one stop the migration
with their ids."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from players.models import Player, PlayerToken
from tests.migrations import migrate

pytestmark = pytest.mark.django_db(transaction=True)

# The statistics of partners and streaks (stats 0005) come after the players' tokens, and the
# season end's new order of steps (ranking 0012) after the players' reset season.
BEFORE_STATS_PAIRS = {
    "stats": "0004_season_one_stats",
    "ranking": "0011_ledger_player_key_unchecked",
}
BEFORE_HASHED_TOKENS: dict[str, str | None] = {
    "players": "0005_username_unique_ignoring_case",
    **BEFORE_STATS_PAIRS,
}
BEFORE_USERNAME_KEYS: dict[str, str | None] = {
    "players": "0003_player_board_season",
    **BEFORE_STATS_PAIRS,
}
OLD_KEY = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(autouse=True)
def _latest_afterwards():
    """Leave the test database at the latest migrations, whatever the test did."""
    yield
    with connection.cursor() as cursor:  # a name that stopped a migration, in any state
        cursor.execute("DELETE FROM players_player WHERE username = 'STRASSE'")
    migrate({})


def test_a_drf_token_is_hashed_in_place_and_works_until_it_expires():
    apps = migrate(BEFORE_HASHED_TOKENS)
    user = apps.get_model("auth", "User").objects.create(username="player.amir")
    apps.get_model("players", "Player").objects.create(
        username="amir", username_key="amir", display_name="Amir", user=user
    )
    apps.get_model("authtoken", "Token").objects.create(key=OLD_KEY, user=user)

    migrate({})

    assert not Token.objects.exists()
    stored = PlayerToken.objects.get()
    assert (stored.player.username, stored.prefix) == ("amir", OLD_KEY[:8])
    assert OLD_KEY not in stored.hashed_key
    expected_end = timezone.now() + timedelta(days=30)
    assert abs(stored.expires_at - expected_end) < timedelta(minutes=1)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {OLD_KEY}")
    assert client.get("/api/v1/players/me/stats/").status_code == 200


def test_existing_usernames_get_their_folded_form():
    apps = migrate(BEFORE_USERNAME_KEYS)
    old_players = apps.get_model("players", "Player").objects
    for name in ("Amir", "Straße", "ИВАН"):
        old_players.create(username=name, display_name=name)

    migrate({})

    keys = dict(Player.objects.values_list("username", "username_key"))
    assert keys == {"Amir": "amir", "Straße": "strasse", "ИВАН": "иван"}


def test_usernames_that_fold_to_one_stop_the_migration_naming_them():
    apps = migrate(BEFORE_USERNAME_KEYS)
    old_players = apps.get_model("players", "Player").objects
    first = old_players.create(username="straße", display_name="A")
    second = old_players.create(username="STRASSE", display_name="B")

    with pytest.raises(RuntimeError) as stopped:
        migrate({})

    assert f"'strasse': players [{first.pk}, {second.pk}]" in str(stopped.value)

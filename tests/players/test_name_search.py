"""The search by the start of a username or a display name (API.md "Players' pages": the
leaderboard's search finds "Ёлка" and "bit"), ignoring case in every script, and on
PostgreSQL answered from the prefix indexes whatever the database's collation."""

import pytest
from django.db import connection

from players.models import Player
from players.services import player_create
from ranking.selectors import players_beginning, players_found

pytestmark = pytest.mark.django_db


@pytest.fixture
def named():
    return {
        username: player_create(username=username, display_name=display)
        for username, display in (
            ("bita", "Bita"),
            ("elka", "Ёлка"),
            ("straße", "Grüße"),
            ("zed", "Бит"),
            ("amir", "Amir"),
        )
    }


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("bit", ["bita"]),
        ("BI", ["bita"]),
        ("ёЛКА", ["elka"]),
        ("ЁЛ", ["elka"]),
        ("STRASSE", ["straße"]),  # the case-folded username
        ("GRÜSSE", ["straße"]),  # the case-folded display name
        ("бИ", ["zed"]),
        ("z", ["zed"]),
        ("mir", []),  # the start of a name, not a part
        ("%", []),  # a pattern's signs are text
        ("_", []),
    ],
)
def test_a_name_is_found_by_its_start_in_any_case_and_script(named, text, found):
    assert [player.username for player in players_found(text, 10)] == found


def test_the_first_ten_in_the_order_of_the_folded_usernames():
    for n in range(12):
        player_create(username=f"p{n:02}", display_name=f"Player {n}")
    assert [p.username for p in players_found("P", 10)] == [f"p{n:02}" for n in range(10)]


def test_a_renamed_player_is_found_by_their_new_name(named):
    player = named["amir"]
    player.display_name = "Ёжик"
    player.save()
    assert players_found("ёж", 10) == [player]
    assert Player.objects.get(pk=player.pk).display_name_key == "ёжик"


@pytest.mark.postgres
def test_postgres_answers_from_the_prefix_indexes(named):
    with connection.cursor() as cursor:
        # The planner reads this test's rows, not the statistics that earlier tests' rows left
        # (rolled back, never analyzed again), which can make an ordered scan of another index
        # look cheaper; and a handful of rows would be read whole: ask it what it can use.
        cursor.execute(f"ANALYZE {Player._meta.db_table}")
        cursor.execute("SET LOCAL enable_seqscan = off")
        plan = players_beginning("ёл")[:10].explain()
    assert "username_key_prefix" in plan, plan
    assert "display_name_key_prefix" in plan, plan
    assert "Seq Scan" not in plan, plan

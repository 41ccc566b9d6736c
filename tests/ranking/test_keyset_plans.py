"""The season end reads the board in keyset batches (``ranking.selectors.leaderboard_after``):
on a filled table each batch is an index range from where the last one stopped, not a filter
over the whole board (KORT_RULES §10; docs/scaling.md)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from players.models import Player
from ranking.board import current_season_number
from ranking.selectors import BoardKey, _behind, leaderboard_after, leaderboard_queryset

PLAYERS = 20_000


@pytest.mark.postgres
def test_a_batch_deep_in_the_board_is_an_index_range(db):
    season = current_season_number()
    now = timezone.now()
    Player.objects.bulk_create(
        Player(
            username=f"p{n}",
            display_name=f"p{n}",
            cups=n % 500,
            best_cups=n % 500,
            cups_changed_at=now - timedelta(seconds=n),
            board_season=season,
        )
        for n in range(PLAYERS)
    )
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Player._meta.db_table}")
    deep = Player.objects.filter(cups=10).order_by("cups_changed_at", "id").first()
    assert deep is not None
    after = BoardKey.of(deep)

    batch = leaderboard_after(after, 100)
    plan = _plan(after)

    assert len(batch) == 100 and all(player.cups <= after.cups for player in batch)
    assert "Index Cond" in plan and "cups <= " in plan.replace('"', ""), plan
    rows_removed = [line for line in plan.splitlines() if "Rows Removed by Filter" in line]
    assert all(int(line.split(":")[1]) < 1_000 for line in rows_removed), plan


def _plan(after: BoardKey) -> str:
    sql, params = leaderboard_queryset().filter(_behind(after))[:100].query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())

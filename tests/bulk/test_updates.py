"""The one-statement updates of the finalization's hot path (``bulk.updates``), on the
database the suite runs on (SQLite here, PostgreSQL in CI): each row gets its own value, the
rows outside the keys and the ``where`` keep theirs, and a statement is one query."""

from datetime import UTC, datetime

from django.db import connection
from django.test.utils import CaptureQueriesContext

from bulk.updates import added_by_key, at_least, by_key, field_value, update_rows, vendor_of
from players.models import Player
from players.services import player_create
from stats.models import SeasonStats


def _players(*names):
    return [player_create(username=name) for name in names]


def test_each_row_gets_the_value_of_its_key_and_the_others_keep_theirs(db):
    amir, nima, sara = _players("amir", "nima", "sara")
    at = datetime(2026, 12, 1, 12, 30, tzinfo=UTC)

    with CaptureQueriesContext(connection) as statements:
        updated = update_rows(
            Player,
            "id",
            [amir.pk, nima.pk],
            {
                "cups": by_key("id", {amir.pk: 12, nima.pk: -7}),
                "best_cups": by_key("id", {amir.pk: 12, nima.pk: 0}),
                "cups_changed_at": field_value(Player, "cups_changed_at", at),
            },
        )

    assert updated == 2
    assert len(statements) == 1
    rows = {p.pk: (p.cups, p.cups_changed_at) for p in Player.objects.all()}
    assert rows[amir.pk] == (12, at)
    assert rows[nima.pk] == (-7, at)
    assert rows[sara.pk] == (0, None)


def test_amounts_are_added_by_group_negative_ones_too_and_where_narrows_the_rows(db):
    amir, nima, sara = _players("amir", "nima", "sara")
    for player in (amir, nima, sara):
        for season in (1, 2):
            SeasonStats.objects.create(
                player=player, season=season, cups=0, best_cups=0, matches_played=5
            )

    update_rows(
        SeasonStats,
        "player_id",
        [amir.pk, nima.pk, sara.pk],
        {
            "matches_played": added_by_key(
                "matches_played", "player_id", [(2, [amir.pk]), (-1, [nima.pk])]
            )
        },
        season=2,
    )

    played = dict(
        ((row.player_id, row.season), row.matches_played) for row in SeasonStats.objects.all()
    )
    assert [played[amir.pk, 2], played[nima.pk, 2], played[sara.pk, 2]] == [7, 4, 5]
    assert [played[p.pk, 1] for p in (amir, nima, sara)] == [5, 5, 5]


def test_at_least_keeps_the_higher_of_the_column_and_the_value(db):
    amir, nima = _players("amir", "nima")
    SeasonStats.objects.create(player=amir, season=1, cups=0, best_cups=10)
    SeasonStats.objects.create(player=nima, season=1, cups=0, best_cups=10)
    totals = by_key("player_id", {amir.pk: 4, nima.pk: 15})

    update_rows(
        SeasonStats,
        "player_id",
        [amir.pk, nima.pk],
        {"best_cups": at_least("best_cups", totals, vendor=vendor_of(SeasonStats))},
        season=1,
    )

    best = dict(SeasonStats.objects.values_list("player_id", "best_cups"))
    assert (best[amir.pk], best[nima.pk]) == (10, 15)


def test_no_keys_or_no_assignments_write_nothing(db):
    (amir,) = _players("amir")

    with CaptureQueriesContext(connection) as statements:
        assert update_rows(Player, "id", [], {"cups": by_key("id", {amir.pk: 3})}) == 0
        assert update_rows(Player, "id", [amir.pk], {}) == 0

    assert len(statements) == 0
    assert Player.objects.get(pk=amir.pk).cups == 0

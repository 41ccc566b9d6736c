"""The one-statement updates of the finalization's hot path (``bulk.updates``), on the
database the suite runs on (SQLite here, PostgreSQL in CI): each row gets its own value, the
rows outside the keys and the ``where`` keep theirs, and a statement is one query."""

from datetime import UTC, datetime

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from bulk.updates import (
    added_by_key,
    at_least,
    by_key,
    field_value,
    insert_rows,
    update_rows,
    vendor_of,
)
from players.models import Player
from players.services import player_create
from stats.models import PlayerStats, SeasonStats


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


def test_inserted_rows_take_the_defaults_and_existing_ones_are_skipped(db, monkeypatch):
    amir, nima, sara = _players("amir", "nima", "sara")
    SeasonStats.objects.create(player=amir, season=3, cups=9, best_cups=9, matches_played=4)
    # Four values given a row (the counts are written as their default, 0): two rows a
    # statement, so three rows take two statements.
    monkeypatch.setattr("bulk.updates.INSERT_PARAMS", 8)

    with CaptureQueriesContext(connection) as statements:
        insert_rows(
            SeasonStats,
            [
                {"player_id": p.pk, "season": 3, "cups": 5, "best_cups": 5}
                for p in (amir, nima, sara)
            ],
            skip_existing=True,
        )

    assert len(statements) == 2
    rows = {
        row.player_id: (row.cups, row.best_cups, row.matches_played, row.ranked_played)
        for row in SeasonStats.objects.filter(season=3)
    }
    assert rows == {amir.pk: (9, 9, 4, 0), nima.pk: (5, 5, 0, 0), sara.pk: (5, 5, 0, 0)}


def test_an_insert_that_breaks_a_unique_constraint_fails_without_skip_existing(db):
    (amir,) = _players("amir")
    insert_rows(PlayerStats, [{"player_id": amir.pk}])

    with pytest.raises(IntegrityError), transaction.atomic():
        insert_rows(PlayerStats, [{"player_id": amir.pk}])
    insert_rows(PlayerStats, [{"player_id": amir.pk}], skip_existing=True)

    assert PlayerStats.objects.filter(player=amir).count() == 1

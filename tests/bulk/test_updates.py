"""The one-statement writes of the finalization's hot path (``bulk.updates``), on the
database the suite runs on (SQLite here, PostgreSQL in CI): each row gets its own value, the
rows outside the keys keep theirs, a statement is one query, and on PostgreSQL a sequence of
them is one round trip."""

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from bulk.updates import Insert, Update, Upsert, run
from players.models import Player
from players.services import player_create
from ranking.models import CupChange
from stats.models import ALL_MODES, ALL_SEASONS, PairFigures, PairSide, PlayerStats, SeasonStats


def _players(*names):
    return [player_create(username=name) for name in names]


def test_each_row_gets_the_value_of_its_key_and_the_others_keep_theirs(db):
    amir, nima, sara = _players("amir", "nima", "sara")
    at = datetime(2026, 12, 1, 12, 30, tzinfo=UTC)

    with CaptureQueriesContext(connection) as statements:
        run(
            [
                Update(
                    Player,
                    ("id",),
                    {"cups": "=", "best_cups": "=", "cups_changed_at": "="},
                    [(amir.pk, 12, 12, at), (nima.pk, -7, 0, at)],
                )
            ]
        )

    assert len(statements) == 1
    rows = {p.pk: (p.cups, p.cups_changed_at) for p in Player.objects.all()}
    assert rows[amir.pk] == (12, at)
    assert rows[nima.pk] == (-7, at)
    assert rows[sara.pk] == (0, None)


def test_amounts_are_added_by_group_negative_ones_too_and_the_key_narrows_the_rows(db):
    amir, nima, sara = _players("amir", "nima", "sara")
    for player in (amir, nima, sara):
        for season in (1, 2):
            SeasonStats.objects.create(
                player=player, season=season, cups=0, best_cups=0, matches_played=5
            )

    amounts = [(amir.pk, 2, 2), (nima.pk, 2, -1), (sara.pk, 2, 0)]
    run([Update(SeasonStats, ("player_id", "season"), {"matches_played": "+"}, amounts)])

    played = dict(
        ((row.player_id, row.season), row.matches_played) for row in SeasonStats.objects.all()
    )
    assert [played[amir.pk, 2], played[nima.pk, 2], played[sara.pk, 2]] == [7, 4, 5]
    assert [played[p.pk, 1] for p in (amir, nima, sara)] == [5, 5, 5]


def test_at_least_keeps_the_higher_of_the_column_and_the_value(db):
    amir, nima = _players("amir", "nima")
    SeasonStats.objects.create(player=amir, season=1, cups=0, best_cups=10)
    SeasonStats.objects.create(player=nima, season=1, cups=0, best_cups=10)
    totals = [(amir.pk, 1, 4), (nima.pk, 1, 15)]

    run([Update(SeasonStats, ("player_id", "season"), {"best_cups": "max"}, totals)])

    best = dict(SeasonStats.objects.values_list("player_id", "best_cups"))
    assert (best[amir.pk], best[nima.pk]) == (10, 15)


def test_no_rows_or_no_columns_write_nothing(db):
    (amir,) = _players("amir")

    with CaptureQueriesContext(connection) as statements:
        run(
            [
                Update(Player, ("id",), {"cups": "="}, []),
                Update(Player, ("id",), {}, [(amir.pk,)]),
                Insert(PlayerStats, []),
            ]
        )

    assert len(statements) == 0
    assert Player.objects.get(pk=amir.pk).cups == 0


def test_inserted_rows_take_the_defaults_and_existing_ones_are_skipped(db, monkeypatch):
    amir, nima, sara = _players("amir", "nima", "sara")
    SeasonStats.objects.create(player=amir, season=3, cups=9, best_cups=9, matches_played=4)
    # Four values given a row (the counts are written as their default, 0): two rows a
    # statement, so three rows take two statements.
    monkeypatch.setattr("bulk.updates.INSERT_PARAMS", 8)

    inserted = [
        {"player_id": p.pk, "season": 3, "cups": 5, "best_cups": 5} for p in (amir, nima, sara)
    ]

    with CaptureQueriesContext(connection) as statements:
        run([Insert(SeasonStats, inserted, Upsert(("player_id", "season")))])

    # The two statements are two round trips too: together they carry more values than one
    # round trip may.
    assert len(statements) == 2
    rows = {
        row.player_id: (row.cups, row.best_cups, row.matches_played, row.ranked_played)
        for row in SeasonStats.objects.filter(season=3)
    }
    assert rows == {amir.pk: (9, 9, 4, 0), nima.pk: (5, 5, 0, 0), sara.pk: (5, 5, 0, 0)}


def test_an_insert_that_breaks_a_unique_constraint_fails_unless_it_skips_the_row(db):
    (amir,) = _players("amir")
    run([Insert(PlayerStats, [{"player_id": amir.pk}])])

    with pytest.raises(IntegrityError), transaction.atomic():
        run([Insert(PlayerStats, [{"player_id": amir.pk}])])
    run([Insert(PlayerStats, [{"player_id": amir.pk}], Upsert(("player_id",)))])

    assert PlayerStats.objects.filter(player=amir).count() == 1


def test_an_upsert_adds_to_the_row_it_meets_or_replaces_its_columns(db):
    amir, nima = _players("amir", "nima")
    run([Insert(PlayerStats, [{"player_id": amir.pk, "matches_played": 3, "matches_won": 2}])])
    adding = Upsert(("player_id",), ("matches_played", "matches_won"), adding=True)
    rows = [
        {"player_id": amir.pk, "matches_played": 1, "matches_won": 0},
        {"player_id": nima.pk, "matches_played": 1, "matches_won": 1},
    ]

    run([Insert(PlayerStats, rows, adding)])
    added = set(PlayerStats.objects.values_list("player_id", "matches_played", "matches_won"))
    run([Insert(PlayerStats, rows[:1], replace(adding, adding=False))])

    assert added == {(amir.pk, 4, 2), (nima.pk, 1, 1)}
    replaced = PlayerStats.objects.get(player=amir)
    assert (replaced.matches_played, replaced.matches_won) == (1, 0)


def test_a_tuple_key_updates_the_rows_of_its_values_only(db):
    amir, nima = _players("amir", "nima")
    for side in (PairSide.PARTNER, PairSide.OPPONENT):
        PairFigures.objects.create(
            player=amir, other=nima, side=side, season=ALL_SEASONS, mode=ALL_MODES, matches=3
        )
    key = ("player_id", "side", "season", "mode", "other_id")

    rows = [(amir.pk, PairSide.PARTNER, ALL_SEASONS, ALL_MODES, nima.pk, -1)]
    run([Update(PairFigures, key, {"matches": "+"}, rows)])

    assert dict(PairFigures.objects.values_list("side", "matches")) == {
        PairSide.PARTNER: 2,
        PairSide.OPPONENT: 3,
    }


def _writes(amir: Player, nima: Player, at: datetime) -> list[Insert | Update]:
    """A ledger row each, the players' totals, then a statistics row: three statements."""
    ledger = [
        {"kind": "season_reset", "player_id": p.pk, "season": 1, "delta": 5, "cups_after": 5}
        | {"created_at": at}
        for p in (amir, nima)
    ]
    return [
        Insert(CupChange, ledger),
        Update(
            Player, ("id",), {"cups": "=", "best_cups": "="}, [(amir.pk, 5, 5), (nima.pk, 5, 5)]
        ),
        Insert(PlayerStats, [{"player_id": amir.pk, "matches_played": 1, "matches_won": 1}]),
    ]


@pytest.mark.postgres
def test_a_sequence_of_statements_is_one_round_trip_on_postgresql(db):
    amir, nima = _players("amir", "nima")
    at = datetime(2026, 12, 1, 12, 30, tzinfo=UTC)

    with CaptureQueriesContext(connection) as trips:
        run(_writes(amir, nima, at))

    assert len(trips) == 1
    assert trips[0]["sql"].count("; ") == 2
    assert sorted(CupChange.objects.values_list("player_id", "cups_after")) == [
        (amir.pk, 5),
        (nima.pk, 5),
    ]
    assert set(Player.objects.values_list("cups", flat=True)) == {5}
    assert PlayerStats.objects.get(player=amir).matches_won == 1


def test_with_server_side_binding_each_statement_is_its_own_round_trip(db, monkeypatch):
    """Server-side binding takes one statement an ``execute`` (and SQLite always does)."""
    amir, nima = _players("amir", "nima")
    at = datetime(2026, 12, 1, 12, 30, tzinfo=UTC)
    options = {**connection.settings_dict["OPTIONS"], "server_side_binding": True}
    monkeypatch.setitem(connection.settings_dict, "OPTIONS", options)

    with CaptureQueriesContext(connection) as trips:
        run(_writes(amir, nima, at))

    assert len(trips) == 3
    assert set(Player.objects.values_list("cups", flat=True)) == {5}
    assert PlayerStats.objects.get(player=amir).matches_won == 1

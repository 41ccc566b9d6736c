"""Score sheets keep their rows when they move from the matches app to this one
(``matches.0007_belote_to_own_app``, ``belote.0001_initial``, ``belote.0002_rename_tables``).

A database migrated up to just before the move gets a sheet with deals through the historical
models; once migrated to the latest state, the sheet, its deals, its totals (API.md
"Bazar Belote") and the permissions held on it are all there. Not marked ``postgres``: it runs on
SQLite, and on PostgreSQL when ``DATABASE_URL`` names one.
"""

import dataclasses

import pytest
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from belote.models import BeloteDeal, BeloteProtocol
from belote.scoring import deal_from_wire, score_deal
from tests.belote.examples import EXAMPLE_2, EXAMPLE_2_SCORE, EXAMPLE_3, EXAMPLE_3_SCORE

BEFORE_THE_MOVE = [("matches", "0006_bavan_vote_opening_play")]


def migrate(targets):
    """Migrate the test database to ``targets``; returns the models of that state."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def stored_deal(body: dict) -> dict:
    """The columns of a stored deal (as in ``matches.0003_belote_protocols``) for a deal body."""
    deal = deal_from_wire(body)
    score = score_deal(deal)
    return {
        "contract": deal.contract.value,
        "suit": deal.suit,
        "contract_number": deal.number,
        "kontra": deal.kontra,
        "trick_whists_playing": deal.tricks_whists.playing,
        "trick_whists_whisting": deal.tricks_whists.whisting,
        "constructions_playing": deal.constructions.playing,
        "constructions_whisting": deal.constructions.whisting,
        "playing_took_tricks": deal.playing_took_tricks,
        "whisting_took_tricks": deal.whisting_took_tricks,
        "played": score.played,
        "points_playing": score.points.playing,
        "points_whisting": score.points.whisting,
        "bait": score.bait,
        "breakdown": dataclasses.asdict(score.breakdown),
    }


def open_old_sheet(old_apps) -> int:
    """A sheet with two deals and a group allowed to view sheets, written before the move."""
    protocol = old_apps.get_model("matches", "BeloteProtocol").objects.create(
        pair_1="We", pair_2="They"
    )
    deals = old_apps.get_model("matches", "BeloteDeal").objects
    deals.create(protocol=protocol, number=1, playing_pair="pair_1", **stored_deal(EXAMPLE_2))
    deals.create(protocol=protocol, number=2, playing_pair="pair_2", **stored_deal(EXAMPLE_3))
    view_sheets = old_apps.get_model("auth", "Permission").objects.get(
        content_type__app_label="matches", codename="view_beloteprotocol"
    )
    old_apps.get_model("auth", "Group").objects.create(name="scorers").permissions.add(view_sheets)
    return protocol.pk


@pytest.mark.django_db(transaction=True)
def test_sheets_and_deals_survive_the_move_to_the_belote_app(api):
    try:
        sheet = open_old_sheet(migrate(BEFORE_THE_MOVE))
    finally:
        migrate(latest())
    ContentType.objects.clear_cache()

    protocol = BeloteProtocol.objects.get(pk=sheet)
    assert (protocol.pair_1, protocol.pair_2) == ("We", "They")
    assert [(d.number, d.deal) for d in BeloteDeal.objects.filter(protocol=protocol)] == [
        (1, deal_from_wire(EXAMPLE_2)),
        (2, deal_from_wire(EXAMPLE_3)),
    ]
    tables = set(connection.introspection.table_names())
    assert {"belote_beloteprotocol", "belote_belotedeal"} <= tables
    assert not {"matches_beloteprotocol", "matches_belotedeal"} & tables

    [permission] = Group.objects.get(name="scorers").permissions.all()
    assert (permission.content_type.app_label, permission.codename) == (
        "belote",
        "view_beloteprotocol",
    )
    assert not ContentType.objects.filter(app_label="matches", model__startswith="belote")

    body = api.get(f"/api/v1/belote/protocols/{sheet}/").json()
    assert body["totals"] == {"pair_1": 28 + 48, "pair_2": 4 + 0}
    assert body["baits"] == {"pair_1": 0, "pair_2": 1}
    assert [(d["deal"], d["score"]) for d in body["deals"]] == [
        (EXAMPLE_2, EXAMPLE_2_SCORE),
        (EXAMPLE_3, EXAMPLE_3_SCORE),
    ]

"""Bazar Belote score sheets (API.md "Bazar Belote"; BELOTE_SCORING §5): deals scored and summed
per pair, bait marks counted, service key for writes, public reads, bad deals write nothing."""

import threading

import pytest
from django.db import connection

from belote import services
from belote.models import BeloteDeal, BeloteProtocol
from belote.scoring import Contract, Deal, PerPair
from tests.belote.examples import (
    EXAMPLE_1,
    EXAMPLE_2,
    EXAMPLE_2_SCORE,
    EXAMPLE_2_TRICKS,
    EXAMPLE_2_WITHOUT_WHISTS,
    EXAMPLE_3,
    EXAMPLE_3_SCORE,
)

PROTOCOLS = "/api/v1/belote/protocols/"
PAIRS = {"pair_1": "We", "pair_2": "They"}

# 8 hearts with Kontra, 100 / 62 whists: C = 16, PC = 8 x 2 = 16; 100 >= 80, played.
# Pv = round10(62) div 10 = 6; Pp = (162 - 60) div 10 = 10. Made with Kontra (§5): the playing
# pair gets PC + Pp + Pv = 32, the whisting pair 0 and a bait.
KONTRA_MADE = {
    "contract": "suit",
    "suit": "H",
    "number": 8,
    "kontra": 1,
    "tricks_whists": {"playing": 100, "whisting": 62},
}
KONTRA_MADE_SCORE = {
    "played": True,
    "points": {"playing": 32, "whisting": 0},
    "bait": "whisting",
    "breakdown": {"C": 16, "PC": 16, "Pp": 10, "Pv": 6, "Vp": 100, "Vv": 62},
}


def open_sheet(service, pairs=PAIRS) -> int:
    r = service.post(PROTOCOLS, {"pairs": pairs})
    assert r.status_code == 201, r.data
    return r.data["id"]


def add_deal(service, sheet_id, playing_pair, deal):
    return service.post(f"{PROTOCOLS}{sheet_id}/deals/", {"playing_pair": playing_pair, **deal})


def test_a_new_sheet_is_empty(service):
    r = service.post(PROTOCOLS, {"pairs": PAIRS})
    assert r.status_code == 201, r.data
    body = r.json()
    assert body.pop("created_at")
    assert body == {
        "id": body["id"],
        "pairs": {"pair_1": "We", "pair_2": "They"},
        "totals": {"pair_1": 0, "pair_2": 0},
        "baits": {"pair_1": 0, "pair_2": 0},
        "deals_count": 0,
        "deals": [],
    }


def test_deals_are_numbered_and_summed_per_pair_with_bait_marks(service, api):
    sheet = open_sheet(service)
    for playing_pair, deal in [
        ("pair_1", EXAMPLE_2),  # We 28, They 4
        ("pair_2", EXAMPLE_3),  # They not played, bait: We 48, They 0
        ("pair_1", EXAMPLE_1),  # We 43, They 4
        ("pair_2", KONTRA_MADE),  # They 32, We 0 and a bait
    ]:
        assert add_deal(service, sheet, playing_pair, deal).status_code == 201
    body = api.get(f"{PROTOCOLS}{sheet}/").json()
    assert body["totals"] == {"pair_1": 28 + 48 + 43 + 0, "pair_2": 4 + 0 + 4 + 32}
    assert body["baits"] == {"pair_1": 1, "pair_2": 1}
    assert body["deals_count"] == 4
    assert [d["number"] for d in body["deals"]] == [1, 2, 3, 4]
    assert [d["points"] for d in body["deals"]] == [
        {"pair_1": 28, "pair_2": 4},
        {"pair_1": 48, "pair_2": 0},
        {"pair_1": 43, "pair_2": 4},
        {"pair_1": 0, "pair_2": 32},
    ]
    assert [d["bait"] for d in body["deals"]] == [None, "pair_2", None, "pair_1"]


def test_a_stored_deal_shows_the_deal_and_its_score(service, api):
    sheet = open_sheet(service)
    add_deal(service, sheet, "pair_2", EXAMPLE_3)
    [deal] = api.get(f"{PROTOCOLS}{sheet}/").json()["deals"]
    assert deal == {
        "number": 1,
        "playing_pair": "pair_2",
        "deal": EXAMPLE_3,
        "score": EXAMPLE_3_SCORE,
        "points": {"pair_1": 48, "pair_2": 0},
        "bait": "pair_2",
    }


def test_adding_a_deal_answers_with_the_sheet(service):
    sheet = open_sheet(service)
    r = add_deal(service, sheet, "pair_1", KONTRA_MADE)
    assert r.status_code == 201, r.data
    assert r.data["totals"] == {"pair_1": 32, "pair_2": 0}
    assert r.data["baits"] == {"pair_1": 0, "pair_2": 1}
    assert r.data["deals"][0]["score"] == KONTRA_MADE_SCORE


def test_a_deal_given_as_cards_is_stored_with_the_counted_whists(service):
    sheet = open_sheet(service)
    r = add_deal(service, sheet, "pair_1", {**EXAMPLE_2_WITHOUT_WHISTS, "tricks": EXAMPLE_2_TRICKS})
    assert r.status_code == 201, r.data
    [deal] = r.data["deals"]
    assert deal["deal"] == EXAMPLE_2
    assert deal["score"] == EXAMPLE_2_SCORE


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"playing_pair": "pair_3", **EXAMPLE_2}, "playing_pair"),
        (EXAMPLE_2, "playing_pair"),
        ({"playing_pair": "pair_1", **EXAMPLE_2, "kontra": 3}, "kontra"),
        ({"playing_pair": "pair_1", **EXAMPLE_2, "suit": None}, "suit"),
    ],
    ids=["unknown-pair", "missing-pair", "bad-kontra", "missing-suit"],
)
def test_a_bad_deal_is_a_400_and_writes_nothing(service, body, field):
    sheet = open_sheet(service)
    r = service.post(f"{PROTOCOLS}{sheet}/deals/", body)
    assert r.status_code == 400
    assert list(r.data) == [field]
    assert not BeloteDeal.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"pairs": {"pair_1": "We", "pair_2": "We"}}, "pairs"),
        ({"pairs": {"pair_1": "We"}}, "pairs"),
        ({"pairs": {"pair_1": "We", "pair_2": ""}}, "pairs"),
        ({"pairs": ["We", "They"]}, "pairs"),
        ({}, "pairs"),
    ],
    ids=["same-names", "one-pair", "blank-name", "list", "missing"],
)
def test_a_bad_sheet_is_a_400_and_writes_nothing(service, body, field):
    r = service.post(PROTOCOLS, body)
    assert r.status_code == 400
    assert list(r.data) == [field]
    assert not BeloteProtocol.objects.exists()


def test_writes_need_a_service_key_and_reads_do_not(service, api):
    sheet = open_sheet(service)
    assert api.post(PROTOCOLS, {"pairs": PAIRS}).status_code == 401
    assert add_deal(api, sheet, "pair_1", EXAMPLE_2).status_code == 401
    assert add_deal(api.as_service("not-a-key"), sheet, "pair_1", EXAMPLE_2).status_code == 401
    assert BeloteProtocol.objects.count() == 1
    assert not BeloteDeal.objects.exists()
    assert api.get(f"{PROTOCOLS}{sheet}/").status_code == 200
    assert api.get(PROTOCOLS).status_code == 200


def test_an_unknown_sheet_is_a_404(service, api):
    assert api.get(f"{PROTOCOLS}999/").status_code == 404
    assert add_deal(service, 999, "pair_1", EXAMPLE_2).status_code == 404


def test_the_list_is_paginated_newest_first_with_totals(service, api):
    first = open_sheet(service, {"pair_1": "A", "pair_2": "B"})
    second = open_sheet(service, {"pair_1": "C", "pair_2": "D"})
    add_deal(service, first, "pair_2", EXAMPLE_2)
    r = api.get(PROTOCOLS)
    assert r.status_code == 200
    assert (r.data["count"], r.data["next"], r.data["previous"]) == (2, None, None)
    assert [s["id"] for s in r.data["results"]] == [second, first]
    assert r.data["results"][1]["totals"] == {"pair_1": 4, "pair_2": 28}
    assert r.data["results"][1]["deals_count"] == 1
    assert "deals" not in r.data["results"][1]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_deals_are_all_kept_and_numbered_in_turn():
    sheet = BeloteProtocol.objects.create(pair_1="We", pair_2="They")
    deal = Deal(
        contract=Contract.SUIT,
        suit="C",
        number=12,
        tricks_whists=PerPair(144, 18),
        playing_took_tricks=True,
        whisting_took_tricks=True,
    )
    start = threading.Barrier(8)

    def add():
        try:
            start.wait()
            services.deal_add(protocol_id=sheet.pk, playing_pair="pair_1", deal=deal)
        finally:
            connection.close()

    threads = [threading.Thread(target=add) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    numbers = sorted(sheet.deals.values_list("number", flat=True))
    assert numbers == list(range(1, 9))

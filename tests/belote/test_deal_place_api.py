"""A deal's place in its sheet, ``"deal": n`` (API.md "Bazar Belote", with the rules of a round's
``number``): a resend of a stored deal with the same place and body returns the sheet unchanged
(200), another body at that place is a 409, a place that skips ahead a 400, and without ``deal``
every POST is a new deal."""

import pytest

from belote.models import BeloteDeal
from tests.belote.examples import EXAMPLE_1, EXAMPLE_2
from tests.belote.test_protocols_api import add_deal, open_sheet


def placed(deal: dict, place: int) -> dict:
    return {**deal, "deal": place}


def test_a_resend_at_its_place_returns_the_stored_deal_and_adds_nothing(service):
    sheet = open_sheet(service)
    first = add_deal(service, sheet, "pair_1", placed(EXAMPLE_2, 1))

    again = add_deal(service, sheet, "pair_1", placed(EXAMPLE_2, 1))

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert again.json()["deals_count"] == 1
    # EXAMPLE_2 (BELOTE_SCORING §6): the playing pair 28, the whisting pair 4.
    assert again.json()["totals"] == {"pair_1": 28, "pair_2": 4}


def test_an_earlier_place_resent_after_later_deals_is_that_deal(service):
    sheet = open_sheet(service)
    add_deal(service, sheet, "pair_1", placed(EXAMPLE_2, 1))
    add_deal(service, sheet, "pair_2", placed(EXAMPLE_1, 2))

    again = add_deal(service, sheet, "pair_1", placed(EXAMPLE_2, 1))

    assert again.status_code == 200
    assert [d["number"] for d in again.json()["deals"]] == [1, 2]


@pytest.mark.parametrize(
    ("pair", "deal"),
    [("pair_2", EXAMPLE_2), ("pair_1", EXAMPLE_1), ("pair_1", {**EXAMPLE_2, "kontra": 1})],
    ids=["other-column", "other-deal", "other-kontra"],
)
def test_another_body_at_a_stored_place_is_a_409(service, pair, deal):
    sheet = open_sheet(service)
    add_deal(service, sheet, "pair_1", placed(EXAMPLE_2, 1))

    response = add_deal(service, sheet, pair, placed(deal, 1))

    assert response.status_code == 409
    assert response.json() == {"deal": ["deal 1 is already stored with another body"]}
    assert BeloteDeal.objects.count() == 1


def test_a_place_that_skips_ahead_is_a_400(service):
    sheet = open_sheet(service)
    add_deal(service, sheet, "pair_1", placed(EXAMPLE_2, 1))

    response = add_deal(service, sheet, "pair_1", placed(EXAMPLE_1, 3))

    assert response.status_code == 400
    assert response.json() == {"deal": ["the next deal is number 2; got 3"]}
    assert BeloteDeal.objects.count() == 1


def test_a_place_below_one_is_a_400(service):
    sheet = open_sheet(service)

    response = add_deal(service, sheet, "pair_1", placed(EXAMPLE_2, 0))

    assert response.status_code == 400
    assert list(response.json()) == ["deal"]
    assert BeloteDeal.objects.count() == 0


def test_without_a_place_every_post_is_a_new_deal(service):
    sheet = open_sheet(service)

    answers = [add_deal(service, sheet, "pair_1", EXAMPLE_2) for _ in range(2)]

    assert [a.status_code for a in answers] == [201, 201]
    assert answers[1].json()["totals"] == {"pair_1": 56, "pair_2": 8}

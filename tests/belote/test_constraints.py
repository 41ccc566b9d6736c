"""The database backs the rules of a stored Belote deal (BELOTE_SCORING §1, §5), whatever writes
it."""

import pytest
from django.db import IntegrityError

from belote import services
from belote.models import BeloteDeal, BeloteProtocol
from belote.scoring import Contract, Deal, PerPair


@pytest.mark.parametrize(
    "change",
    [
        {"number": 0},
        {"kontra": 3},
        {"contract_number": 0},
        {"playing_pair": "pair_3"},
        {"trick_whists_whisting": 19},
        {"constructions_playing": 25},
        {"bait": None},
        {"played": False},
    ],
    ids=lambda change: next(iter(change)),
)
def test_a_deal_that_breaks_a_rule_cannot_be_stored(db, change):
    # 8 hearts with Kontra, 100 / 62 whists: made, so the bait goes to the whisting pair.
    sheet = BeloteProtocol.objects.create(pair_1="We", pair_2="They")
    deal = Deal(
        contract=Contract.SUIT,
        suit="H",
        number=8,
        kontra=1,
        tricks_whists=PerPair(100, 62),
        playing_took_tricks=True,
        whisting_took_tricks=True,
    )
    stored, _ = services.deal_add(protocol_id=sheet.pk, playing_pair="pair_1", deal=deal)
    with pytest.raises(IntegrityError):
        BeloteDeal.objects.filter(pk=stored.pk).update(**change)


def test_two_pairs_of_a_sheet_need_different_names(db):
    with pytest.raises(IntegrityError):
        BeloteProtocol.objects.create(pair_1="We", pair_2="We")

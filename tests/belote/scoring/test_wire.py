"""A deal read from its wire form (API.md "Bazar Belote"; BELOTE_SCORING §1, §3, §7), without
Django: the wire's defaults, the took-tricks rule, and the cards form."""

import pytest

from belote.scoring import (
    Contract,
    InvalidBeloteDealError,
    PerPair,
    deal_from_wire,
)
from tests.belote.examples import EXAMPLE_2, EXAMPLE_2_TRICKS, EXAMPLE_2_WITHOUT_WHISTS

# Kapo in hearts made from the whists: the whisting pair took no trick (§3).
KAPO = {
    "contract": "kapo",
    "suit": "H",
    "number": 1,
    "tricks_whists": {"playing": 162, "whisting": 0},
}


def test_a_whists_form_deal_is_read_as_given():
    deal = deal_from_wire(EXAMPLE_2)
    assert deal.contract is Contract.SUIT
    assert (deal.suit, deal.number, deal.kontra) == ("C", 12, 0)
    assert deal.tricks_whists == PerPair(144, 18)
    assert deal.constructions == PerPair(20, 20)
    assert (deal.playing_took_tricks, deal.whisting_took_tricks) == (True, True)


def test_suit_kontra_and_constructions_may_be_left_out():
    deal = deal_from_wire({"contract": "all_trumps", "number": 22, **_whists(221, 37)})
    assert (deal.suit, deal.kontra, deal.constructions) == (None, 0, PerPair(0, 0))


def test_a_pair_with_trick_whists_took_a_trick_when_its_flag_is_left_out():
    deal = deal_from_wire({"contract": "suit", "suit": "C", "number": 12, **_whists(144, 18)})
    assert (deal.playing_took_tricks, deal.whisting_took_tricks) == (True, True)


def test_a_pair_with_no_trick_whists_needs_its_flag():
    # A trick worth 0 whists still breaks a Kapo (§3): leaving the flag out is not "false".
    with pytest.raises(InvalidBeloteDealError, match="required when the whisting pair") as raised:
        deal_from_wire(KAPO)
    assert raised.value.field == "whisting_took_tricks"
    assert deal_from_wire({**KAPO, "whisting_took_tricks": False}).whisting_took_tricks is False


def test_a_given_flag_wins_over_the_default():
    deal = deal_from_wire({**KAPO, "whisting_took_tricks": True})
    assert deal.whisting_took_tricks is True


def test_the_cards_form_counts_the_whists_and_the_flags():
    deal = deal_from_wire({**EXAMPLE_2_WITHOUT_WHISTS, "tricks": EXAMPLE_2_TRICKS})
    assert deal == deal_from_wire(EXAMPLE_2)


def test_all_trumps_contracts_count_the_cards_in_all_trumps():
    body = {"contract": "all_trumps", "number": 10, "tricks": EXAMPLE_2_TRICKS}
    whists = deal_from_wire(body).tricks_whists
    assert whists.playing + whists.whisting == 258


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({**EXAMPLE_2, "tricks": EXAMPLE_2_TRICKS}, "tricks", "give either tricks or"),
        (EXAMPLE_2_WITHOUT_WHISTS, "tricks_whists", "required unless tricks are given"),
        (
            {**EXAMPLE_2_WITHOUT_WHISTS, "tricks": [{**EXAMPLE_2_TRICKS[0], "taken_by": "me"}]},
            "tricks",
            "a deal has 8 tricks",
        ),
        (
            {
                **EXAMPLE_2_WITHOUT_WHISTS,
                "tricks": [{**EXAMPLE_2_TRICKS[0], "taken_by": "me"}, *EXAMPLE_2_TRICKS[1:]],
            },
            "tricks",
            "trick 1: taken by must be",
        ),
        ({**EXAMPLE_2, "kontra": 3}, "kontra", "between 0 and 2"),
    ],
    ids=["both-forms", "no-whists", "seven-tricks", "bad-taker", "deal-rule"],
)
def test_a_bad_deal_names_its_field(body, field, words):
    with pytest.raises(InvalidBeloteDealError, match=words) as raised:
        deal_from_wire(body)
    assert raised.value.field == field


def _whists(playing: int, whisting: int) -> dict:
    return {"tricks_whists": {"playing": playing, "whisting": whisting}}

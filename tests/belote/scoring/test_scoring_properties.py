"""Properties of BELOTE_SCORING §1-§5 over generated deals."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from belote.scoring import Contract, Deal, InvalidBeloteDealError, PerPair, score_deal

SUIT_LETTERS = ["S", "H", "D", "C"]
# The deck values of BELOTE_SCORING §1, and the base costs of §2, written out again on purpose.
SUIT_DECK, ALL_TRUMPS_DECK = 162, 258
BASE_COST = {
    Contract.SUIT: 16,
    Contract.ALL_TRUMPS: 25,
    Contract.KAPO: 25,
    Contract.KAPO_ALL_TRUMPS: 34,
    Contract.KAPO_FROM_HAND: 50,
}
SIMPLE = (Contract.SUIT, Contract.ALL_TRUMPS)


@st.composite
def contracts_with_suit(draw):
    """(contract, suit, S) for any contract."""
    contract = draw(st.sampled_from(Contract))
    if contract in (Contract.ALL_TRUMPS, Contract.KAPO_ALL_TRUMPS):
        suit = None
    elif contract is Contract.KAPO_FROM_HAND:
        suit = draw(st.sampled_from([*SUIT_LETTERS, "AT"]))
    else:
        suit = draw(st.sampled_from(SUIT_LETTERS))
    return contract, suit, deck_value(contract, suit)


def deck_value(contract, suit):
    """S of BELOTE_SCORING §1: 258 in all trumps, 162 in a suit."""
    if suit == "AT" or contract in (Contract.ALL_TRUMPS, Contract.KAPO_ALL_TRUMPS):
        return ALL_TRUMPS_DECK
    return SUIT_DECK


construction_whists = st.integers(min_value=0, max_value=40).map(lambda tens: tens * 10)


@st.composite
def deals(draw, contracts):
    """Valid deals: trick whists that add up to S, consistent with who took tricks."""
    contract, suit, deck = draw(contracts)
    playing_took, whisting_took = draw(
        st.sampled_from([(True, True), (True, False), (False, True)])
    )
    if not playing_took:
        playing_whists = 0
    elif not whisting_took:
        playing_whists = deck
    else:
        playing_whists = draw(st.integers(min_value=0, max_value=deck))
    return Deal(
        contract=contract,
        suit=suit,
        number=draw(st.integers(min_value=1, max_value=40)),
        kontra=draw(st.integers(min_value=0, max_value=2)),
        tricks_whists=PerPair(playing=playing_whists, whisting=deck - playing_whists),
        constructions=PerPair(
            playing=draw(construction_whists), whisting=draw(construction_whists)
        ),
        playing_took_tricks=playing_took,
        whisting_took_tricks=whisting_took,
    )


any_deals = deals(contracts_with_suit())
simple_deals = deals(
    st.sampled_from(
        [(Contract.SUIT, suit, SUIT_DECK) for suit in SUIT_LETTERS]
        + [(Contract.ALL_TRUMPS, None, ALL_TRUMPS_DECK)]
    )
)


@given(any_deals)
def test_whists_are_conserved_through_the_constructions_transfer(deal):
    # Vp + Vv = S + VCp + VCv whichever pair ends up with the constructions.
    breakdown = score_deal(deal).breakdown
    constructions = deal.constructions.playing + deal.constructions.whisting
    assert breakdown.Vp + breakdown.Vv == deck_value(deal.contract, deal.suit) + constructions


@given(simple_deals)
def test_whist_points_reach_exactly_the_cap(deal):
    # §4 asks Pv + Pp <= C + (VCp + VCv) / 10; with S = 162 or 258 it always holds with equality.
    breakdown = score_deal(deal).breakdown
    constructions = deal.constructions.playing + deal.constructions.whisting
    cap = BASE_COST[deal.contract] + constructions // 10
    assert breakdown.Pv + breakdown.Pp == cap


@given(any_deals)
def test_no_result_is_negative(deal):
    points = score_deal(deal).points
    assert points.playing >= 0
    assert points.whisting >= 0


@given(any_deals)
def test_a_played_contract_gives_the_playing_pair_at_least_its_contract_points(deal):
    score = score_deal(deal)
    if score.played:
        assert score.points.playing >= score.breakdown.PC


@given(any_deals)
def test_the_baited_pair_scores_nothing(deal):
    # §5: only a played contract without Kontra shares the points; otherwise the baited pair gets 0.
    score = score_deal(deal)
    if score.bait is not None:
        assert score.points[score.bait] == 0
    assert (score.bait is None) == (score.played and deal.kontra == 0)


@given(any_deals)
def test_contract_points_are_n_or_c_plus_k_doubled_per_kontra(deal):
    # §2: PC = N (simple) or C + K (Kapo), x 2 for Kontra, x 4 for Rekontra.
    undoubled = deal.number if deal.contract in SIMPLE else BASE_COST[deal.contract] + deal.number
    contract_points = score_deal(deal).breakdown.PC
    assert contract_points == undoubled * (1, 2, 4)[deal.kontra]


@given(contracts_with_suit(), st.integers(min_value=0, max_value=400), st.integers(0, 400))
def test_trick_whists_that_miss_the_deck_value_always_raise(contract_with_suit, playing, whisting):
    contract, suit, deck = contract_with_suit
    if playing + whisting == deck:
        whisting += 1
    with pytest.raises(InvalidBeloteDealError, match=f"must add up to {deck}") as raised:
        Deal(
            contract=contract,
            suit=suit,
            number=1,
            tricks_whists=PerPair(playing=playing, whisting=whisting),
            playing_took_tricks=True,
            whisting_took_tricks=True,
        )
    assert raised.value.field == "tricks_whists"


@given(any_deals)
def test_played_follows_the_whists_or_for_kapo_the_tricks(deal):
    # §3, with §1's transfer: a playing pair without tricks keeps none of its constructions.
    constructions = deal.constructions.playing if deal.playing_took_tricks else 0
    if deal.contract in SIMPLE:
        expected = deal.tricks_whists.playing + constructions >= deal.number * 10
    else:
        expected = not deal.whisting_took_tricks
    assert score_deal(deal).played == expected

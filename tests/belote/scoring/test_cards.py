"""Trick whists counted from the cards (BELOTE_SCORING §7); sums are worked out by hand."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from belote.scoring import (
    Card,
    Contract,
    Deal,
    InvalidBeloteDealError,
    Pair,
    PerPair,
    Rank,
    Trick,
    count_tricks,
    score_deal,
)

P, W = Pair.PLAYING, Pair.WHISTING
RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"]
DECK = [rank + suit for rank in RANKS for suit in "SHDC"]


def tricks_of(cards, takers):
    """Deal ``cards`` four at a time into tricks taken by ``takers``."""
    return [Trick(tuple(cards[i * 4 : i * 4 + 4]), taker) for i, taker in enumerate(takers)]


# Trick k holds the four cards of the k-th rank: 7s, 8s, 9s, 10s, Js, Qs, Ks, As.
# The playing pair takes the 9s, the Js and the As (the last trick).
BY_RANK_TAKERS = [W, W, P, W, P, W, W, P]


@pytest.mark.parametrize("trump", ["S", "H", "D", "C"])
def test_tricks_by_rank_with_a_trump_suit(trump):
    # Playing: 9s 14 + Js (20 + 3 x 2) 26 + As 44 + last 10 = 94.
    # Whisting: 7s 0 + 8s 0 + 10s 40 + Qs 12 + Ks 16 = 68.  94 + 68 = 162.
    count = count_tricks(trump, tricks_of(DECK, BY_RANK_TAKERS))
    assert count.tricks_whists == PerPair(playing=94, whisting=68)
    assert count.playing_took_tricks
    assert count.whisting_took_tricks


def test_tricks_by_rank_in_all_trumps():
    # Playing: 9s 4 x 14 = 56 + Js 4 x 20 = 80 + As 44 + last 10 = 190.
    # Whisting: 10s 40 + Qs 12 + Ks 16 = 68.  190 + 68 = 258.
    count = count_tricks("AT", tricks_of(DECK, BY_RANK_TAKERS))
    assert count.tricks_whists == PerPair(playing=190, whisting=68)


CLUBS_DEAL = [
    Trick(("JC", "9C", "AC", "10C"), P),  # 20 + 14 + 11 + 10 = 55
    Trick(("AH", "10H", "KH", "QH"), P),  # 11 + 10 + 4 + 3 = 28
    Trick(("7C", "8C", "QC", "KC"), P),  # 3 + 4 = 7
    Trick(("AS", "10S", "JS", "9S"), W),  # 11 + 10 + 2 + 0 = 23
    Trick(("KS", "QS", "8S", "7S"), W),  # 7
    Trick(("AD", "10D", "JD", "9D"), P),  # 23
    Trick(("KD", "QD", "8D", "7D"), W),  # 7
    Trick(("JH", "9H", "8H", "7H"), P),  # 2, + 10 for the last trick = 12
]


def test_mixed_tricks_in_clubs():
    # Playing: 55 + 28 + 7 + 23 + 12 = 125; whisting: 23 + 7 + 7 = 37.
    count = count_tricks("C", CLUBS_DEAL)
    assert count.tricks_whists == PerPair(playing=125, whisting=37)


def test_counted_tricks_feed_the_scorer():
    # 12 clubs, Bella (20) for the playing pair: Vp = 145 >= 120, Vv = 37 -> Pv = 4,
    # Pp = (182 - 40) div 10 = 14. Playing: 12 + 14 = 26; whisting: 4.
    count = count_tricks("C", CLUBS_DEAL)
    deal = Deal(
        contract=Contract.SUIT,
        suit="C",
        number=12,
        tricks_whists=count.tricks_whists,
        constructions=PerPair(playing=20, whisting=0),
        playing_took_tricks=count.playing_took_tricks,
        whisting_took_tricks=count.whisting_took_tricks,
    )
    assert score_deal(deal).points == PerPair(playing=26, whisting=4)


def test_every_trick_to_the_playing_pair_is_a_kapo():
    count = count_tricks("H", tricks_of(DECK, [P] * 8))
    assert count.tricks_whists == PerPair(playing=162, whisting=0)
    assert not count.whisting_took_tricks


def test_a_trick_worth_nothing_still_counts_as_taken():
    # The 7s (0 whists) go to the whisting pair: 0 whists, but a trick.
    count = count_tricks("H", tricks_of(DECK, [W] + [P] * 7))
    assert count.tricks_whists == PerPair(playing=162, whisting=0)
    assert count.whisting_took_tricks


def test_no_trick_for_the_playing_pair():
    count = count_tricks("AT", tricks_of(DECK, [W] * 8))
    assert count.tricks_whists == PerPair(playing=0, whisting=258)
    assert not count.playing_took_tricks


@given(
    st.sampled_from([("S", 162), ("H", 162), ("D", 162), ("C", 162), ("AT", 258)]),
    st.permutations(DECK),
    st.lists(st.sampled_from(Pair), min_size=8, max_size=8),
)
def test_any_deal_adds_up_to_the_deck_value(trump_and_deck, cards, takers):
    trump, deck_value = trump_and_deck
    whists = count_tricks(trump, tricks_of(cards, takers)).tricks_whists
    assert whists.playing + whists.whisting == deck_value


def test_card_notation_round_trips():
    card = Card.parse("10D")
    assert card == Card(Rank.TEN, "D")
    assert str(card) == "10D"


def with_trick(number, trick):
    """The by-rank deal with trick ``number`` (1-based) replaced."""
    tricks = tricks_of(DECK, BY_RANK_TAKERS)
    tricks[number - 1] = trick
    return tricks


@pytest.mark.parametrize(
    ("tricks", "phrase"),
    [
        (tricks_of(DECK[:28], BY_RANK_TAKERS[:7]), "a deal has 8 tricks; got 7"),
        (with_trick(3, Trick(("9S", "9H", "9D"), P)), "trick 3: a trick has 4 cards; got 3"),
        (with_trick(2, Trick(("8S", "1H", "8D", "8C"), W)), "trick 2: '1H' is not a card"),
        (with_trick(1, Trick(("7S", "7H", "7D", "6C"), W)), "trick 1: '6C' is not a card"),
        (with_trick(5, Trick(("JS", "JH", "JX", "JC"), P)), "trick 5: 'JX' is not a card"),
        (
            with_trick(7, Trick(("KS", "KH", None, "KC"), W)),  # type: ignore[arg-type]  # not a card
            "trick 7: None is not a card",
        ),
        (
            with_trick(6, Trick(("QS", "QH", "8S", "QC"), W)),
            "trick 6: 8S was already played in trick 2",
        ),
        (with_trick(4, Trick(("10S", "10H", "10D", "10C"), "them")), "trick 4: taken by must be"),
    ],
)
def test_bad_tricks_name_the_trick_and_the_card(tricks, phrase):
    with pytest.raises(InvalidBeloteDealError, match=phrase) as raised:
        count_tricks("H", tricks)
    assert raised.value.field == "tricks"


def test_unknown_trump_is_rejected():
    with pytest.raises(
        InvalidBeloteDealError, match="trump must be one of S, H, D, C, AT; got 'N'"
    ) as e:
        count_tricks("N", tricks_of(DECK, BY_RANK_TAKERS))
    assert e.value.field == "suit"

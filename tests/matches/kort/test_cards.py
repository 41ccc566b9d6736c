import pytest

from matches.kort.cards import (
    CARD_NAMES,
    FULL_DECK,
    RANK_OF,
    SUIT_MASKS,
    SUIT_OF,
    InvalidCardError,
    InvalidSuitError,
    Rank,
    Suit,
    card_name,
    card_names,
    card_of,
    cards_in,
    mask_of,
    parse_card,
    parse_suit,
)


@pytest.mark.parametrize(
    ("name", "card"),
    [("2S", 0), ("AS", 12), ("2H", 13), ("10H", 21), ("QD", 36), ("2C", 39), ("AC", 51)],
)
def test_wire_names_map_to_suit_times_13_plus_rank(name, card):
    assert parse_card(name) == card
    assert card_name(card) == name


def test_all_52_names_are_distinct_and_round_trip():
    assert len(set(CARD_NAMES)) == 52
    assert [parse_card(name) for name in CARD_NAMES] == list(range(52))


def test_card_of_rank_and_suit():
    assert card_of(Rank.TEN, Suit.H) == 21
    assert card_of(Rank.ACE, Suit.C) == 51
    assert SUIT_OF[21] == Suit.H
    assert RANK_OF[21] == Rank.TEN


@pytest.mark.parametrize(
    "name", ["1H", "TH", "10h", "as", "A", "", "10HH", "11S", None, 12, ["AS"]]
)
def test_parse_card_rejects_anything_but_a_wire_name(name):
    with pytest.raises(InvalidCardError, match="is not a card: write the rank then the suit"):
        parse_card(name)


def test_invalid_card_error_is_a_value_error():
    assert issubclass(InvalidCardError, ValueError)
    assert issubclass(InvalidSuitError, ValueError)


@pytest.mark.parametrize("card", [-1, 52, "AS", 3.0])
def test_card_name_rejects_non_cards(card):
    with pytest.raises(InvalidCardError, match="is not a card"):
        card_name(card)


def test_parse_suit():
    assert [parse_suit(letter) for letter in "SHDC"] == [Suit.S, Suit.H, Suit.D, Suit.C]
    with pytest.raises(InvalidSuitError, match="'X' is not a suit: use one of S, H, D, C"):
        parse_suit("X")
    with pytest.raises(InvalidSuitError):
        parse_suit("h")


def test_suit_and_rank_words():
    assert Suit.H.letter == "H"
    assert Suit.D.noun == "diamond"
    assert Rank.TEN.symbol == "10"
    assert Rank.QUEEN.symbol == "Q"


def test_suit_masks_partition_the_deck():
    assert SUIT_MASKS[Suit.S] == 0x1FFF
    assert SUIT_MASKS[Suit.C] == 0x1FFF << 39
    assert SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2] | SUIT_MASKS[3] == FULL_DECK
    assert sum(mask.bit_count() for mask in SUIT_MASKS) == 52


def test_masks_and_back():
    mask = mask_of([parse_card("AS"), parse_card("2S"), parse_card("10H"), parse_card("2S")])
    assert mask == (1 << 12) | (1 << 0) | (1 << 21)
    assert list(cards_in(mask)) == [0, 12, 21]
    assert card_names(mask) == ["2S", "AS", "10H"]
    assert list(cards_in(0)) == []

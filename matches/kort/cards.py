"""Cards, suits, ranks and hands of KORT, in the wire notation of KORT_RULES §1.

A card is a plain ``int`` from 0 to 51: ``suit * 13 + rank``, where ``suit`` is a :class:`Suit`
(S H D C = 0 1 2 3) and ``rank`` a :class:`Rank` (2 = 0 ... A = 12). Within a suit a higher int is a
higher card, so the winner of a suit is the highest set bit of its mask.

A hand (or any set of cards) is a 52-bit ``int`` mask: bit ``card`` is set when the card is in it.
All per-card facts are precomputed tables indexed by the card, so the hot path allocates nothing.

Wire notation: rank then suit letter, ``AS``, ``10H``, ``QD``, ``2C``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from enum import IntEnum
from functools import reduce
from operator import or_

Card = int
"""A card, 0..51 (``suit * 13 + rank``)."""

CARDS_PER_SUIT = 13
DECK_SIZE = 52
FULL_DECK = (1 << DECK_SIZE) - 1
"""The mask holding all 52 cards."""


class Suit(IntEnum):
    """The four suits, in the order of the wire letters S H D C."""

    S = 0
    H = 1
    D = 2
    C = 3

    def __repr__(self) -> str:
        return f"Suit.{self.name}"

    @property
    def letter(self) -> str:
        """The wire letter, e.g. ``"H"``."""
        return self.name

    @property
    def noun(self) -> str:
        """The English noun used in messages, e.g. ``"heart"``."""
        return SUIT_NOUNS[self]


class Rank(IntEnum):
    """The thirteen ranks, lowest first."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def symbol(self) -> str:
        """The wire symbol, e.g. ``"10"`` or ``"Q"``."""
        return RANK_SYMBOLS[self]


SUIT_NOUNS = ("spade", "heart", "diamond", "club")
RANK_SYMBOLS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

SUIT_MASKS: tuple[int, ...] = tuple(
    ((1 << CARDS_PER_SUIT) - 1) << (suit * CARDS_PER_SUIT) for suit in Suit
)
"""``SUIT_MASKS[suit]``: the mask of the 13 cards of that suit."""

SUIT_OF: tuple[int, ...] = tuple(card // CARDS_PER_SUIT for card in range(DECK_SIZE))
"""``SUIT_OF[card]``: the suit (0..3) of a card."""

RANK_OF: tuple[int, ...] = tuple(card % CARDS_PER_SUIT for card in range(DECK_SIZE))
"""``RANK_OF[card]``: the rank (0..12) of a card."""

SUIT_MASK_OF: tuple[int, ...] = tuple(SUIT_MASKS[suit] for suit in SUIT_OF)
"""``SUIT_MASK_OF[card]``: the mask of the card's suit."""

CARD_NAMES: tuple[str, ...] = tuple(
    RANK_SYMBOLS[RANK_OF[card]] + Suit(SUIT_OF[card]).letter for card in range(DECK_SIZE)
)
"""``CARD_NAMES[card]``: the wire notation of a card, e.g. ``"10H"``."""

CARD_BY_NAME: dict[str, int] = {name: card for card, name in enumerate(CARD_NAMES)}
"""The wire notation of each card, mapped to the card."""

CARD_BITS: dict[str, int] = {name: 1 << card for name, card in CARD_BY_NAME.items()}
"""The wire notation of each card, mapped to the card's bit in a hand mask."""

SUIT_BY_LETTER: dict[str, Suit] = {suit.letter: suit for suit in Suit}


class InvalidCardError(ValueError):
    """A string or int that is not a card of the wire notation (KORT_RULES §1). From
    :func:`parse_cards`, ``position`` is the 1-based place of the bad name in its list."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.position = position


class RepeatedCardError(InvalidCardError):
    """A list of cards that names one card twice (a hand holds each card once)."""


class InvalidSuitError(ValueError):
    """A string that is not one of the suit letters S H D C (KORT_RULES §1)."""


def card_of(rank: Rank | int, suit: Suit | int) -> Card:
    """Return the card of ``rank`` (0..12) in ``suit`` (0..3)."""
    return suit * CARDS_PER_SUIT + rank


def parse_card(name: str) -> Card:
    """Return the card written ``name`` in the wire notation (``"AS"``, ``"10H"``, ``"2C"``).

    Raises:
        InvalidCardError: ``name`` is not exactly one of the 52 wire names.
    """
    try:
        return CARD_BY_NAME[name]
    except (KeyError, TypeError):
        raise not_a_card(name) from None


def not_a_card(name: object) -> InvalidCardError:
    """Return the error for ``name``, which is not one of the 52 wire names."""
    return InvalidCardError(
        f"{name!r} is not a card: write the rank then the suit letter, "
        "e.g. AS, 10H, QD, 2C (KORT_RULES §1)"
    )


def parse_suit(letter: str) -> Suit:
    """Return the suit of the wire letter ``letter`` (``"S"``, ``"H"``, ``"D"`` or ``"C"``).

    Raises:
        InvalidSuitError: ``letter`` is not one of the four letters.
    """
    try:
        return SUIT_BY_LETTER[letter]
    except (KeyError, TypeError):
        raise InvalidSuitError(
            f"{letter!r} is not a suit: use one of S, H, D, C (KORT_RULES §1)"
        ) from None


def card_name(card: Card) -> str:
    """Return the wire notation of ``card`` (0..51), e.g. ``"QD"``.

    Raises:
        InvalidCardError: ``card`` is not an int from 0 to 51.
    """
    if not isinstance(card, int) or not 0 <= card < DECK_SIZE:
        raise InvalidCardError(f"{card!r} is not a card: cards are ints from 0 to 51")
    return CARD_NAMES[card]


def parse_cards(names: Sequence[object]) -> int:
    """Return the mask of the cards written ``names`` in the wire notation: the one place card
    names become a hand mask.

    Raises:
        InvalidCardError: a name is not one of the 52 wire names (``position`` says which).
        RepeatedCardError: a card is listed twice.
    """
    try:
        mask = reduce(or_, [CARD_BITS[name] for name in names], 0)  # type: ignore[index]
    except (KeyError, TypeError):
        position, name = next(
            (i, n) for i, n in enumerate(names, 1) if not isinstance(n, str) or n not in CARD_BITS
        )
        raise InvalidCardError(str(not_a_card(name)), position) from None
    if mask.bit_count() != len(names):
        twice = next(n for i, n in enumerate(names) if n in names[:i])
        raise RepeatedCardError(f"{twice} is listed twice")
    return mask


def mask_of(cards: Iterable[Card]) -> int:
    """Return the mask of ``cards`` (duplicates collapse)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_in(mask: int) -> Iterator[Card]:
    """Yield the cards of ``mask`` from the lowest (2S) to the highest (AC)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def card_names(mask: int) -> list[str]:
    """Return the wire names of the cards of ``mask``, lowest first."""
    return [CARD_NAMES[card] for card in cards_in(mask)]

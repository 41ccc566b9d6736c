"""Trick whists counted from the cards (BELOTE_SCORING §7), to feed :class:`~.deals.Deal`.

Belote uses the 32-card deck: ranks 7 8 9 10 J Q K A in spades, hearts, diamonds and clubs. A card
is written rank then suit letter, as on the wire: ``"JH"``, ``"9C"``, ``"10D"``, ``"AS"``.

Card whists (§7): in the trump suit, and in every suit under all trumps, J 20, 9 14, A 11, 10 10,
K 4, Q 3, 8 and 7 nothing; in other suits J 2 and 9 nothing, the rest as in trumps. The last trick
is worth 10 more. Eight tricks of four distinct cards are the whole deck, so the whists of the two
pairs always add up to S: 162 with a trump suit, 258 in all trumps.

Construction whists the product uses
------------------------------------
Constructions are not scored from the cards: their whists stay an input of the deal, per pair,
with these values (standard Belote):

=========================== ======
construction                whists
=========================== ======
terz (three in sequence)    20
quarta, "50" (four)         50
quint, "100" (five)         100
Bella (K and Q of trumps)   20
four jacks                  200
four nines                  150
four aces, tens, kings or   100
queens
=========================== ======
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from belote.scoring.deals import ALL_TRUMPS, SUITS, InvalidBeloteDealError, Pair, PerPair

TRICKS_PER_DEAL = 8
CARDS_PER_TRICK = 4
LAST_TRICK_WHISTS = 10


class Rank(StrEnum):
    """The eight ranks of the Belote deck, in their wire spelling."""

    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    ACE = "A"


_RANK_SPELLINGS = frozenset(rank.value for rank in Rank)

# BELOTE_SCORING §7: whists of a rank (as a trump, in another suit).
CARD_WHISTS = {
    Rank.JACK: (20, 2),
    Rank.NINE: (14, 0),
    Rank.ACE: (11, 11),
    Rank.TEN: (10, 10),
    Rank.KING: (4, 4),
    Rank.QUEEN: (3, 3),
    Rank.EIGHT: (0, 0),
    Rank.SEVEN: (0, 0),
}


@dataclass(frozen=True, slots=True)
class Card:
    """One card of the 32-card deck; ``suit`` is a letter of ``SUITS``."""

    rank: Rank
    suit: str

    @classmethod
    def parse(cls, text: object) -> Card:
        """Read the wire notation, e.g. ``"10D"``.

        Raises:
            ValueError: if ``text`` is not a card of the 32-card deck.
        """
        if isinstance(text, str) and text[-1:] in SUITS and text[:-1] in _RANK_SPELLINGS:
            return cls(Rank(text[:-1]), text[-1])
        raise ValueError(f"{text!r} is not a card of the 32-card deck")

    def whists(self, trump: str) -> int:
        """Whists of the card when ``trump`` (a suit letter or ``"AT"``) is trumps (§7)."""
        as_trump, otherwise = CARD_WHISTS[self.rank]
        return as_trump if trump in (ALL_TRUMPS, self.suit) else otherwise

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}"


@dataclass(frozen=True, slots=True)
class Trick:
    """Four cards in wire notation and the pair that took them, as a :class:`~.deals.Pair` or
    its wire name (:func:`count_tricks` refuses any other)."""

    cards: tuple[str, ...]
    taken_by: Pair | str


@dataclass(frozen=True, slots=True)
class TrickCount:
    """What the tricks tell :class:`~.deals.Deal`: whists per pair, last trick included, and
    whether each pair took a trick."""

    tricks_whists: PerPair[int]
    playing_took_tricks: bool
    whisting_took_tricks: bool


def count_tricks(trump: str | None, tricks: Sequence[Trick]) -> TrickCount:
    """Count each pair's trick whists from the eight tricks of a deal (BELOTE_SCORING §7).

    Args:
        trump: the trump suit letter (``"S"``, ``"H"``, ``"D"``, ``"C"``) or ``"AT"``; None (a
            suit contract without its suit) is refused like an unknown trump.
        tricks: the eight tricks in the order they were played; the last one earns 10 more.

    Returns:
        Trick whists per pair, adding up to 162 with a trump suit and 258 in all trumps, and
        whether each pair took any trick.

    Raises:
        InvalidBeloteDealError: ``field`` "suit" for an unknown trump; ``field`` "tricks" for a
            deal that is not eight tricks of four distinct cards of the deck, naming the trick and
            the card.
    """
    if trump not in (*SUITS, ALL_TRUMPS):
        raise InvalidBeloteDealError("suit", f"trump must be one of S, H, D, C, AT; got {trump!r}")
    if len(tricks) != TRICKS_PER_DEAL:
        raise InvalidBeloteDealError("tricks", f"a deal has 8 tricks; got {len(tricks)}")
    whists = {Pair.PLAYING: 0, Pair.WHISTING: 0}
    takers: set[Pair] = set()
    played_in: dict[Card, int] = {}
    for number, trick in enumerate(tricks, start=1):
        taker = _taker(number, trick)
        takers.add(taker)
        whists[taker] += sum(card.whists(trump) for card in _cards(number, trick, played_in))
        if number == TRICKS_PER_DEAL:
            whists[taker] += LAST_TRICK_WHISTS
    return TrickCount(
        tricks_whists=PerPair(playing=whists[Pair.PLAYING], whisting=whists[Pair.WHISTING]),
        playing_took_tricks=Pair.PLAYING in takers,
        whisting_took_tricks=Pair.WHISTING in takers,
    )


def _taker(number: int, trick: Trick) -> Pair:
    try:
        return Pair(trick.taken_by)
    except ValueError:
        raise InvalidBeloteDealError(
            "tricks",
            f"trick {number}: taken by must be 'playing' or 'whisting'; got {trick.taken_by!r}",
        ) from None


def _cards(number: int, trick: Trick, played_in: dict[Card, int]) -> list[Card]:
    """The trick's cards, parsed; records them in ``played_in`` (card -> trick number)."""
    if len(trick.cards) != CARDS_PER_TRICK:
        raise InvalidBeloteDealError(
            "tricks", f"trick {number}: a trick has 4 cards; got {len(trick.cards)}"
        )
    cards = []
    for text in trick.cards:
        try:
            card = Card.parse(text)
        except ValueError as error:
            raise InvalidBeloteDealError("tricks", f"trick {number}: {error}") from None
        if card in played_in:
            raise InvalidBeloteDealError(
                "tricks", f"trick {number}: {card} was already played in trick {played_in[card]}"
            )
        played_in[card] = number
        cards.append(card)
    return cards

"""Seeded bots that deal and play legal KORT rounds, for the demo ladder, tests and benchmarks.

Everything here is reproducible: the same seed gives the same deal, trump and record.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from matches.kort.cards import CARD_NAMES, RANK_OF, SUIT_OF, Card, Suit, mask_of
from matches.kort.engine import DeclarationKind, IllegalPlayError, RoundState
from matches.kort.replay import Record
from matches.kort.rules import BavanDecision

FIRST_CARDS = 5
"""The trump caller names trump from this many first cards of their hand (KORT_RULES §1)."""


def deal(rng_or_seed: random.Random | int) -> tuple[list[Card], ...]:
    """Shuffle a deck and deal it: four lists of 13 cards, seat 0 first, each in deal order.

    The first five cards of a hand are the ones its owner sees when calling trump (§1).
    """
    rng = _rng(rng_or_seed)
    deck = list(range(52))
    rng.shuffle(deck)
    return tuple(deck[seat * 13 : seat * 13 + 13] for seat in range(4))


def choose_trump(first_cards: Sequence[Card]) -> Suit:
    """Name trump from the caller's first five cards (KORT_RULES §1).

    The suit with the most cards wins; a tie goes to the higher sum of ranks, then to the suit
    that comes first in S H D C.
    """
    return max(
        Suit,
        key=lambda suit: (
            sum(SUIT_OF[card] == suit for card in first_cards),
            sum(RANK_OF[card] for card in first_cards if SUIT_OF[card] == suit),
            -suit,
        ),
    )


def random_card(state: RoundState, rng: random.Random) -> Card:
    """Pick any legal card of the seat to play, uniformly."""
    return rng.choice(state.legal_cards())


def greedy_card(state: RoundState, rng: random.Random) -> Card:
    """Lead the highest card; follow with the cheapest card that takes the trick, else the lowest.

    When the partner already holds the trick, play the lowest legal card. Ties between equal
    ranks of different suits are broken by ``rng``.
    """
    legal = state.legal_cards()
    rng.shuffle(legal)
    trick = state.current_trick
    if not trick:
        return max(legal, key=RANK_OF.__getitem__)
    power = _power(trick, state.trump_suit)
    best = max(trick, key=power)
    partner_holds = len(trick) >= 2 and trick[-2] == best
    taking = [card for card in legal if power(card) > power(best)]
    if taking and not partner_holds:
        return min(taking, key=power)
    return min(legal, key=RANK_OF.__getitem__)


STRATEGIES: dict[str, Callable[[RoundState, random.Random], Card]] = {
    "random": random_card,
    "greedy": greedy_card,
}


def play_round(
    seed: int,
    trump_seat: int = 0,
    bavan_policy: BavanDecision | None = BavanDecision.GO,
    strategy: str = "random",
    declaration_rate: float = 0.0,
) -> dict[str, Any]:
    """Deal and play a whole round with four bots and return its record in wire form.

    Args:
        seed: seeds the deal, the trump choice and every bot choice.
        trump_seat: the trump caller (0..3).
        bavan_policy: the decision at a 7:0; None stops the record there (vote pending).
        strategy: ``"random"`` or ``"greedy"`` (see :data:`STRATEGIES`).
        declaration_rate: chance (0..1) that a random seat tries a random declaration before a
            trick; refused declarations are dropped.

    Returns ``{"trump_suit", "hands", "tricks", "declarations"}`` as in API.md's ``"play"``.

    Raises:
        KeyError: an unknown ``strategy``.
    """
    rng = random.Random(seed)
    choose_card = STRATEGIES[strategy]
    hands = deal(rng)
    trump = choose_trump(hands[trump_seat][:FIRST_CARDS])
    state = RoundState([mask_of(hand) for hand in hands], trump, trump_seat)
    while not state.is_over:
        if state.awaiting_bavan_decision:
            if bavan_policy is None:
                break
            state.decide_bavan(bavan_policy)
            continue
        if not state.current_trick and rng.random() < declaration_rate:
            _try_declaration(state, rng)
        state.play(choose_card(state, rng))
    return _record(state, hands).to_wire()


def _rng(rng_or_seed: random.Random | int) -> random.Random:
    return rng_or_seed if isinstance(rng_or_seed, random.Random) else random.Random(rng_or_seed)


def _power(trick: tuple[Card, ...], trump: Suit) -> Callable[[Card], int]:
    """Order cards by what takes the trick: trumps, then the led suit, then anything else."""
    led = SUIT_OF[trick[0]]

    def power(card: Card) -> int:
        suit = SUIT_OF[card]
        return RANK_OF[card] + (26 if suit == trump else 13 if suit == led else 0)

    return power


def _try_declaration(state: RoundState, rng: random.Random) -> None:
    try:
        state.declare(rng.randrange(4), rng.choice(list(DeclarationKind)))
    except IllegalPlayError:
        return  # a refused declaration is simply not made


def _record(state: RoundState, hands: Sequence[Sequence[Card]]) -> Record:
    return Record(
        trump_suit=state.trump_suit.letter,
        hands=tuple(tuple(CARD_NAMES[card] for card in hand) for hand in hands),
        tricks=tuple(tuple(CARD_NAMES[card] for card in trick.cards) for trick in state.tricks),
        declarations=state.declarations,
    )

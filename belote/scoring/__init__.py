"""Bazar Belote scoring: a pure package, free of Django (BELOTE_SCORING.md).

:mod:`~belote.scoring.deals` scores a deal (§1-§6), :mod:`~belote.scoring.cards` counts trick
whists from the cards (§7), and :mod:`~belote.scoring.wire` reads a deal from its wire form
(API.md "Bazar Belote"). Import from here.
"""

from belote.scoring.cards import Card, Rank, Trick, TrickCount, count_tricks
from belote.scoring.deals import (
    ALL_TRUMPS,
    ALL_TRUMPS_DECK_WHISTS,
    MAX_KONTRA,
    SUIT_DECK_WHISTS,
    SUITS,
    Breakdown,
    Contract,
    Deal,
    DealScore,
    InvalidBeloteDealError,
    Pair,
    PerPair,
    round10,
    score_deal,
)
from belote.scoring.wire import deal_from_wire

__all__ = [
    "ALL_TRUMPS",
    "ALL_TRUMPS_DECK_WHISTS",
    "MAX_KONTRA",
    "SUITS",
    "SUIT_DECK_WHISTS",
    "Breakdown",
    "Card",
    "Contract",
    "Deal",
    "DealScore",
    "InvalidBeloteDealError",
    "Pair",
    "PerPair",
    "Rank",
    "Trick",
    "TrickCount",
    "count_tricks",
    "deal_from_wire",
    "round10",
    "score_deal",
]

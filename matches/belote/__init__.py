"""Bazar Belote scoring: a pure package, free of Django (BELOTE_SCORING.md)."""

from matches.belote.cards import Card, Rank, Trick, TrickCount, count_tricks
from matches.belote.scoring import (
    Breakdown,
    Contract,
    Deal,
    DealScore,
    InvalidDealError,
    Pair,
    PerPair,
    round10,
    score_deal,
)

__all__ = [
    "Breakdown",
    "Card",
    "Contract",
    "Deal",
    "DealScore",
    "InvalidDealError",
    "Pair",
    "PerPair",
    "Rank",
    "Trick",
    "TrickCount",
    "count_tricks",
    "round10",
    "score_deal",
]

"""Bazar Belote scoring: a pure package, free of Django (BELOTE_SCORING.md)."""

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
    "Contract",
    "Deal",
    "DealScore",
    "InvalidDealError",
    "Pair",
    "PerPair",
    "round10",
    "score_deal",
]

"""Hand-made rounds whose play and results are worked out from KORT_RULES, not from the code.

Each record is in wire form. Comments give the tricks as (leader) cards -> taker.
"""

from typing import Any

WireRecord = dict[str, Any]
"""A round record in its JSON form (API.md "Matches", ``"play"``)."""

DOWN = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]


def suit(letter, ranks=DOWN):
    return [rank + letter for rank in ranks]


def cards(text):
    return text.split()


# Seat 0 all spades, seat 1 all hearts, seat 2 all diamonds, seat 3 all clubs. With spades trump
# whoever leads, seat 0 takes every trick: nobody else can follow or trump.
BLOCKS = [suit("S"), suit("H"), suit("D"), suit("C")]


def blocks_from_seat_0(count):
    """Trump caller 0 leads AS, KS, ...; each other seat throws its suit from the top."""
    return [[s, h, d, c] for s, h, d, c in zip(*BLOCKS, strict=True)][:count]


def blocks_from_seat_1(count):
    """Trump caller 1 leads AH; seat 0 trumps with 2S, then leads AS, KS, ... (At-kort)."""
    first = ["AH", "2D", "2C", "2S"]  # order: seat 1, 2, 3, 0
    rest = zip(suit("S")[:12], suit("H")[1:], suit("D")[:12], suit("C")[:12], strict=True)
    return [first, *map(list, rest)][:count]


KORT: WireRecord = {
    "trump_suit": "S",
    "hands": BLOCKS,
    "tricks": blocks_from_seat_0(7),
    "declarations": [],
}
"""Trump caller 0; team A 7:0 after 7 tricks. With stop: kort, A +5; with no decision: vote."""

BAVAN: WireRecord = {**KORT, "tricks": blocks_from_seat_0(13)}
"""The Kort deal played on: 13:0 for A, bavan, +10."""

AT_KORT: WireRecord = {**KORT, "tricks": blocks_from_seat_1(7)}
"""Trump caller 1 (team B); team A takes all 7: at_kort, A +7."""

AT_BAVAN: WireRecord = {**KORT, "tricks": blocks_from_seat_1(13)}
"""The At-kort deal played on: 13:0 for A against B's trump: at_bavan, A +13."""

# A normal win 7:3 for the trump team. Spades trump, caller 0.
WIN_HANDS = [
    cards("AS KS QS JS 10S 9S 8S 7H 6H 5H 4H 3H 2H"),
    cards("7S 6S 5S 4S 3S 2S AH KH QH JH 10H 9H 8H"),
    suit("D"),
    suit("C"),
]
WIN: WireRecord = {
    "trump_suit": "S",
    "hands": WIN_HANDS,
    "tricks": [
        ["2H", "AH", "2D", "2C"],  # (0) -> 1, B 1
        ["KH", "3D", "3C", "3H"],  # (1) -> 1, B 2
        ["QH", "4D", "4C", "4H"],  # (1) -> 1, B 3
        ["2S", "5D", "5C", "AS"],  # (1) -> 0 trumps over, A 1
        ["KS", "3S", "6D", "6C"],  # (0) -> 0, A 2
        ["QS", "4S", "7D", "7C"],  # A 3
        ["JS", "5S", "8D", "8C"],  # A 4
        ["10S", "6S", "9D", "9C"],  # A 5
        ["9S", "7S", "10D", "10C"],  # A 6
        ["8S", "JH", "JD", "JC"],  # (0) -> 0, seat 1 is out of spades: A 7, 7:3
    ],
    "declarations": [],
}
WIN_WINNERS = (1, 1, 1, 0, 0, 0, 0, 0, 0, 0)

# A failed Bavan: caller 0 takes 7 spade tricks, goes on, leads 2H; seat 3 takes it with AH.
FAILED_HANDS = [
    cards("AS KS QS JS 10S 9S 8S 7H 6H 5H 4H 3H 2H"),
    suit("C"),
    suit("D"),
    cards("7S 6S 5S 4S 3S 2S AH KH QH JH 10H 9H 8H"),
]
FAILED: WireRecord = {
    "trump_suit": "S",
    "hands": FAILED_HANDS,
    "tricks": [
        ["AS", "2C", "2D", "2S"],
        ["KS", "3C", "3D", "3S"],
        ["QS", "4C", "4D", "4S"],
        ["JS", "5C", "5D", "5S"],
        ["10S", "6C", "6D", "6S"],
        ["9S", "7C", "7D", "7S"],
        ["8S", "8C", "8D", "8H"],  # seat 3 is out of spades: 7:0
        ["2H", "9C", "9D", "AH"],  # Bavan: (0) -> 3, 7:1
    ],
    "declarations": [],
}

# The trump-lead bar (KORT_RULES §3). Spades trump, caller 0. Seat 1 holds only clubs and seat 3
# only diamonds, so team A takes every trick. Seat 0 declares Trop before trick 1 and the team
# reaches 7:0: a completed Trop.
TROP_HANDS = [
    cards("AH KH QH JH 10H 9H AS KS QS JS 9S 8S 2S"),
    suit("C"),
    cards("8H 7H 6H 5H 4H 3H 2H 10S 7S 6S 5S 4S 3S"),
    suit("D"),
]
TROP_FIRST_SEVEN = [
    ["AH", "2C", "2H", "2D"],
    ["KH", "3C", "3H", "3D"],
    ["QH", "4C", "4H", "4D"],
    ["JH", "5C", "5H", "5D"],
    ["10H", "6C", "6H", "6D"],
    ["9H", "7C", "7H", "7D"],
    ["AS", "8C", "3S", "8D"],  # (0) -> 0: 7:0
]
TROP_BAVAN = [
    ["2S", "9C", "10S", "9D"],  # seat 0 holds only trumps: leads 2S, the bar stays; -> 2
    ["8H", "10D", "8S", "10C"],  # (2) must lead 8H (7S barred); the bar lifts; -> 0
    ["9S", "JC", "4S", "JD"],
    ["JS", "QC", "5S", "QD"],
    ["QS", "KC", "6S", "KD"],
    ["KS", "AC", "7S", "AD"],  # 13:0
]
TROP_DECLARATIONS = [{"seat": 0, "kind": "trop", "before_trick": 1}]
TROP: WireRecord = {
    "trump_suit": "S",
    "hands": TROP_HANDS,
    "tricks": TROP_FIRST_SEVEN + TROP_BAVAN,
    "declarations": TROP_DECLARATIONS,
}
TROP_WINNERS = (0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0)

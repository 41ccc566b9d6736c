"""The position the guaranteed-Bavan search starts from at a vote opened with a record
(KORT_RULES §3, §4, §6), worked out by hand from golden rounds."""

import pytest

from matches.kort.bavan_search import bavan_guaranteed, position_at_vote
from matches.kort.cards import Suit, mask_of, parse_card
from matches.kort.replay import InvalidRecordError
from tests.matches.kort.golden_rounds import TROP_DECLARATIONS, TROP_FIRST_SEVEN, TROP_HANDS


def mask(text: str) -> int:
    return mask_of(parse_card(name) for name in text.split())


TROP_AT_SEVEN = {
    "trump_suit": "S",
    "hands": TROP_HANDS,
    "tricks": TROP_FIRST_SEVEN,
    "declarations": TROP_DECLARATIONS,
}

# Spades trump, caller 0. Seat 0 draws six rounds of spades; seat 3 follows with its six small
# spades, then throws 8H on the 7th: 7:0 for team A. Seat 0 is left with six low hearts and seat
# 2 with clubs only, while the opponents hold every higher heart: seat 0 must lead a heart
# into them, so the Bavan is not guaranteed.
EXPOSED = {
    "trump_suit": "S",
    "hands": [
        ["AS", "KS", "QS", "JS", "10S", "9S", "8S", "2H", "3H", "4H", "5H", "6H", "7H"],
        [f"{rank}D" for rank in ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]],
        [f"{rank}C" for rank in ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]],
        ["7S", "6S", "5S", "4S", "3S", "2S", "8H", "9H", "10H", "JH", "QH", "KH", "AH"],
    ],
    "tricks": [
        ["AS", "2D", "2C", "2S"],
        ["KS", "3D", "3C", "3S"],
        ["QS", "4D", "4C", "4S"],
        ["JS", "5D", "5C", "5S"],
        ["10S", "6D", "6C", "6S"],
        ["9S", "7D", "7C", "7S"],
        ["8S", "8D", "8C", "8H"],
    ],
    "declarations": [],
}


def test_after_a_completed_trop_the_team_is_barred_and_the_opponents_show_out():
    position = position_at_vote(TROP_AT_SEVEN, trump_seat=0)

    assert position == {
        # Seat 0 played AH..9H and AS; seat 2 played 2H..7H and 3S.
        "team_hands": {0: mask("KS QS JS 9S 8S 2S"), 2: mask("8H 10S 7S 6S 5S 4S")},
        "unknown": mask("9C 10C JC QC KC AC 9D 10D JD QD KD AD"),
        "trump": Suit.S,
        "leader": 0,
        "trop_bar": True,
        # Seats 1 (clubs) and 3 (diamonds) did not follow hearts (six times) or spades.
        "voids": {1: 1 << Suit.S | 1 << Suit.H, 3: 1 << Suit.S | 1 << Suit.H},
    }
    # Seat 0 holds only trumps, all above what is out: it leads them, barred or not.
    assert bavan_guaranteed(**position).guaranteed


def test_a_team_that_must_lead_into_higher_cards_is_not_guaranteed():
    position = position_at_vote(EXPOSED, trump_seat=0)

    assert position["team_hands"] == {0: mask("2H 3H 4H 5H 6H 7H"), 2: mask("AC KC QC JC 10C 9C")}
    assert position["voids"] == {1: 1 << Suit.S, 3: 1 << Suit.S}
    assert position["trop_bar"] is False
    assert not bavan_guaranteed(**position).guaranteed


def test_a_record_that_does_not_stop_at_7_0_has_no_vote_position():
    finished = {**EXPOSED, "tricks": EXPOSED["tricks"][:6]}

    with pytest.raises(InvalidRecordError):
        position_at_vote(finished, trump_seat=0)

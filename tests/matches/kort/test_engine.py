import pytest

from matches.kort.cards import CARD_NAMES, Suit, mask_of, parse_card
from matches.kort.engine import (
    Declaration,
    DeclarationKind,
    IllegalPlayError,
    InvalidDealError,
    RoundState,
    Trick,
)
from matches.kort.rules import BavanDecision, Outcome, Team
from tests.matches.kort import golden_rounds as golden


def hand_masks(record):
    return [mask_of(map(parse_card, hand)) for hand in record["hands"]]


def start(record, trump_seat=0):
    return RoundState(hand_masks(record), Suit[record["trump_suit"]], trump_seat)


def play(state, tricks):
    for trick in tricks:
        for name in trick:
            state.play(parse_card(name))


def names(cards):
    return [CARD_NAMES[card] for card in cards]


# -- golden rounds ----------------------------------------------------------------------------


def test_normal_win_7_3_for_the_trump_team():
    state = start(golden.WIN)
    play(state, golden.WIN["tricks"])
    assert state.is_over
    assert state.tricks_won == (7, 3)
    assert state.trick_winners == golden.WIN_WINNERS
    assert state.bavan is None
    result = state.outcome()
    assert (result.outcome, result.winner, result.wins_awarded) == (Outcome.WIN, Team.A, 1)


def test_no_card_after_a_7_3():
    state = start(golden.WIN)
    play(state, golden.WIN["tricks"])
    assert state.legal_cards() == []
    with pytest.raises(
        IllegalPlayError,
        match=r"^trick 11: seat 0 played 7H after the round ended at 7:3 \(A:B\) "
        r"\(KORT_RULES §1\)$",
    ):
        state.play(parse_card("7H"))


def test_kort_pauses_for_the_vote_then_stop_ends_it():
    state = start(golden.KORT)
    play(state, golden.KORT["tricks"])
    assert state.awaiting_bavan_decision
    assert not state.is_over
    assert state.outcome() is None
    assert state.legal_cards() == []
    with pytest.raises(IllegalPlayError, match=r"^trick 8: seat 0 played 6S before the Bavan"):
        state.play(parse_card("6S"))
    state.decide_bavan(BavanDecision.STOP)
    assert state.is_over
    result = state.outcome()
    assert (result.outcome, result.winner, result.wins_awarded) == (Outcome.KORT, Team.A, 5)


def test_at_kort_for_the_defenders():
    state = start(golden.AT_KORT, trump_seat=1)
    play(state, golden.AT_KORT["tricks"])
    assert state.trick_winners == (0,) * 7
    state.decide_bavan("stop")
    result = state.outcome()
    assert (result.outcome, result.winner, result.wins_awarded) == (Outcome.AT_KORT, Team.A, 7)


def test_made_bavan_13_0():
    state = start(golden.BAVAN)
    play(state, golden.BAVAN["tricks"][:7])
    state.decide_bavan(BavanDecision.GO)
    assert state.to_play == 0  # the 7th trick's taker leads (KORT_RULES §3)
    play(state, golden.BAVAN["tricks"][7:])
    assert state.tricks_won == (13, 0)
    assert state.outcome().outcome == Outcome.BAVAN
    assert state.outcome().wins_awarded == 10


def test_at_bavan_13_0():
    state = start(golden.AT_BAVAN, trump_seat=1)
    play(state, golden.AT_BAVAN["tricks"][:7])
    state.decide_bavan("go")
    play(state, golden.AT_BAVAN["tricks"][7:])
    assert state.outcome().outcome == Outcome.AT_BAVAN
    assert state.outcome().wins_awarded == 13


def test_failed_bavan_ends_at_the_opponents_first_trick():
    state = start(golden.FAILED)
    play(state, golden.FAILED["tricks"][:7])
    state.decide_bavan(BavanDecision.GO)
    play(state, golden.FAILED["tricks"][7:])
    assert state.is_over
    assert state.tricks_won == (7, 1)
    result = state.outcome()
    assert (result.outcome, result.winner, result.wins_awarded) == (
        Outcome.BAVAN_FAILED,
        Team.B,
        5,
    )


def test_tricks_record_leaders_cards_and_takers():
    state = start(golden.WIN)
    play(state, golden.WIN["tricks"][:4])
    assert state.tricks[0] == Trick(1, 0, tuple(map(parse_card, ["2H", "AH", "2D", "2C"])), 1)
    assert state.tricks[3].leader == 1
    assert state.tricks[3].winner == 0
    assert eval(repr(state.tricks[3])) == state.tricks[3]


# -- following suit -------------------------------------------------------------------------


def test_must_follow_the_led_suit():
    state = start(golden.WIN)
    play(state, [golden.WIN["tricks"][0]])
    state.play(parse_card("KH"))
    state.play(parse_card("3D"))
    state.play(parse_card("3C"))
    assert names(state.legal_cards()) == ["3H", "4H", "5H", "6H", "7H"]
    with pytest.raises(
        IllegalPlayError, match=r"^trick 2: seat 0 played AS holding a heart after a heart lead$"
    ):
        state.play(parse_card("AS"))


def test_a_seat_out_of_the_led_suit_may_play_anything():
    state = start(golden.WIN)
    state.play(parse_card("2H"))
    state.play(parse_card("AH"))
    assert state.legal_mask() == hand_masks(golden.WIN)[2]


def test_leader_may_lead_anything_without_a_bar():
    state = start(golden.WIN)
    assert state.legal_mask() == hand_masks(golden.WIN)[0]
    assert state.to_play == 0


def test_card_not_held():
    state = start(golden.WIN)
    with pytest.raises(IllegalPlayError, match=r"^trick 1: seat 0 played AH but does not hold it$"):
        state.play(parse_card("AH"))


@pytest.mark.parametrize("card", [-1, 52])
def test_not_a_card(card):
    state = start(golden.WIN)
    with pytest.raises(IllegalPlayError, match=f"seat 0 played {card}, which is not a card"):
        state.play(card)


def test_a_refused_card_changes_nothing():
    state = start(golden.WIN)
    with pytest.raises(IllegalPlayError):
        state.play(parse_card("AH"))
    assert state.hands == tuple(hand_masks(golden.WIN))
    assert state.current_trick == ()


def test_highest_trump_takes_the_trick_over_a_higher_led_card():
    state = start(golden.WIN)
    play(state, golden.WIN["tricks"][:3])
    play(state, [["2S", "5D", "5C", "AS"]])
    assert state.trick_winners[-1] == 0
    assert state.to_play == 0


# -- the Bavan decision ---------------------------------------------------------------------


def test_no_decision_without_a_7_0():
    state = start(golden.WIN)
    with pytest.raises(IllegalPlayError, match=r"no Bavan decision is due at 0:0 \(A:B\)"):
        state.decide_bavan(BavanDecision.GO)


def test_decision_is_taken_once():
    state = start(golden.KORT)
    play(state, golden.KORT["tricks"])
    state.decide_bavan("stop")
    with pytest.raises(IllegalPlayError, match="no Bavan decision is due at 7:0"):
        state.decide_bavan("go")


def test_decision_must_be_go_or_stop():
    state = start(golden.KORT)
    play(state, golden.KORT["tricks"])
    with pytest.raises(IllegalPlayError, match="'bavan' is not a Bavan decision"):
        state.decide_bavan("bavan")
    assert state.awaiting_bavan_decision


# -- declarations and the trump-lead bar (KORT_RULES §3, §9) ---------------------------------


def test_completed_trop_bars_trump_leads_on_bavan():
    state = start(golden.TROP)
    state.declare(0, DeclarationKind.TROP)
    play(state, golden.TROP_FIRST_SEVEN)
    assert not state.trop_bar
    state.decide_bavan(BavanDecision.GO)
    assert state.trop_bar
    # Seat 0 holds only trumps: it must lead one, and that does not lift the bar.
    assert names(state.legal_cards()) == ["2S", "8S", "9S", "JS", "QS", "KS"]
    play(state, [golden.TROP_BAVAN[0]])
    assert state.trop_bar
    assert state.to_play == 2
    # Seat 2 holds 8H and trumps: the trumps are barred.
    assert names(state.legal_cards()) == ["8H"]
    with pytest.raises(
        IllegalPlayError,
        match=r"^trick 9: seat 2 led 7S: trump lead barred after a completed Trop "
        r"\(KORT_RULES §3\)$",
    ):
        state.play(parse_card("7S"))
    play(state, golden.TROP_BAVAN[1:])
    assert not state.trop_bar
    assert state.trick_winners == golden.TROP_WINNERS
    assert state.outcome().outcome == Outcome.BAVAN


def test_bar_lifts_on_the_first_lead_of_another_suit():
    state = start(golden.TROP)
    state.declare(0, "trop")
    play(state, golden.TROP_FIRST_SEVEN)
    state.decide_bavan("go")
    play(state, golden.TROP_BAVAN[:2])
    assert not state.trop_bar
    assert state.legal_mask() == state.hands[0]


def test_without_trop_the_bavan_team_may_lead_trumps():
    state = start(golden.TROP)
    play(state, golden.TROP_FIRST_SEVEN)
    state.decide_bavan("go")
    play(state, [golden.TROP_BAVAN[0]])
    assert "7S" in names(state.legal_cards())
    state.play(parse_card("7S"))


def test_opponents_trop_does_not_bar_the_bavan_team():
    state = start(golden.TROP)
    state.declare(1, "trop")
    play(state, golden.TROP_FIRST_SEVEN)
    state.decide_bavan("go")
    play(state, [golden.TROP_BAVAN[0]])
    state.play(parse_card("7S"))


def test_no_bar_after_a_stop():
    state = start(golden.TROP)
    state.declare(2, "trop")
    play(state, golden.TROP_FIRST_SEVEN)
    state.decide_bavan("stop")
    assert not state.trop_bar
    assert state.outcome().outcome == Outcome.KORT


def test_declarations_are_recorded_with_their_trick():
    state = start(golden.WIN)
    assert state.declare(0, "sar") == Declaration(0, DeclarationKind.SAR, 1)
    play(state, golden.WIN["tricks"][:2])
    state.declare(3, "trop")
    assert state.declarations == (
        Declaration(0, DeclarationKind.SAR, 1),
        Declaration(3, DeclarationKind.TROP, 3),
    )


def test_trop_refused_from_5_tricks_outside_bavan_but_sar_allowed():
    state = start(golden.KORT)
    play(state, golden.KORT["tricks"][:5])
    with pytest.raises(
        IllegalPlayError,
        match=r"^before trick 6: seat 2 may not declare trop with 5 tricks; from 5 tricks only "
        r"sar, except on Bavan \(KORT_RULES §3\)$",
    ):
        state.declare(2, "trop")
    state.declare(2, "sar")
    state.declare(1, "trop")  # the other team has no trick


def test_trop_allowed_on_bavan_with_7_or_more():
    state = start(golden.BAVAN)
    play(state, golden.BAVAN["tricks"][:7])
    state.decide_bavan("go")
    state.declare(0, "trop")
    play(state, golden.BAVAN["tricks"][7:9])
    state.declare(2, "trop")
    assert [d.before_trick for d in state.declarations] == [8, 10]
    assert not state.trop_bar  # a Trop on Bavan does not start a bar


def test_one_declaration_per_team_before_a_trick():
    state = start(golden.WIN)
    state.declare(0, "sar")
    with pytest.raises(IllegalPlayError, match=r"^before trick 1: seat 2 may not declare twice"):
        state.declare(2, "trop")
    state.declare(1, "sar")


def test_no_declaration_during_a_trick():
    state = start(golden.WIN)
    state.play(parse_card("2H"))
    with pytest.raises(IllegalPlayError, match="may not declare during a trick"):
        state.declare(1, "sar")


def test_no_declaration_during_the_vote_or_after_the_end():
    state = start(golden.KORT)
    play(state, golden.KORT["tricks"])
    with pytest.raises(IllegalPlayError, match="while the Bavan decision is pending"):
        state.declare(0, "sar")
    state.decide_bavan("stop")
    with pytest.raises(IllegalPlayError, match="the round is over"):
        state.declare(0, "sar")


@pytest.mark.parametrize(("seat", "kind"), [(4, "sar"), (0, "kort"), ("0", "sar"), (-1, "trop")])
def test_declaration_needs_a_seat_and_a_kind(seat, kind):
    state = start(golden.WIN)
    with pytest.raises(IllegalPlayError, match="is not a declaration; kinds are sar and trop"):
        state.declare(seat, kind)


# -- the deal ---------------------------------------------------------------------------------


def test_deal_must_have_four_hands():
    with pytest.raises(InvalidDealError, match="a deal has 4 hands, got 3"):
        RoundState(hand_masks(golden.WIN)[:3], Suit.S, 0)


def test_deal_hands_of_13():
    hands = hand_masks(golden.WIN)
    hands[1] &= hands[1] - 1  # drop the lowest card
    with pytest.raises(InvalidDealError, match="seat 1 holds 12 cards; each seat holds 13"):
        RoundState(hands, Suit.S, 0)


def test_deal_card_in_two_hands():
    hands = hand_masks(golden.WIN)
    two_s, two_d = parse_card("2S"), parse_card("2D")
    hands[2] = hands[2] ^ (1 << two_d) | (1 << two_s)
    with pytest.raises(InvalidDealError, match="2S is dealt twice, to seat 1 and seat 2"):
        RoundState(hands, Suit.S, 0)


@pytest.mark.parametrize(
    ("suit", "seat", "message"),
    [(4, 0, "trump suit 4 is not a suit"), (Suit.S, 4, "trump seat 4 is not a seat")],
)
def test_trump_suit_and_seat_ranges(suit, seat, message):
    with pytest.raises(InvalidDealError, match=message):
        RoundState(hand_masks(golden.WIN), suit, seat)


def test_not_a_mask():
    with pytest.raises(InvalidDealError, match="seat 0: -1 is not a mask of cards"):
        RoundState([-1, 0, 0, 0], Suit.S, 0)


def test_repr_names_the_position():
    state = start(golden.WIN, trump_seat=0)
    play(state, golden.WIN["tricks"][:1])
    assert repr(state) == "<RoundState trick 2, seat 1 to play, tricks 0:1 (A:B), trump S>"

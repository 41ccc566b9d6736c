import copy

import pytest

from matches.kort.cards import mask_of, parse_card
from matches.kort.engine import Declaration, DeclarationKind
from matches.kort.replay import InvalidRecordError, Record, replay_record
from matches.kort.rules import BavanDecision, Outcome, Team
from tests.matches.kort import golden_rounds as golden


def rejected(record, field, message, trump_seat=0, bavan=None):
    with pytest.raises(InvalidRecordError, match=message) as caught:
        replay_record(record, trump_seat, bavan)
    assert caught.value.field == field
    return caught.value


def edited(record, **changes):
    return {**copy.deepcopy(record), **changes}


# -- golden rounds ----------------------------------------------------------------------------


def test_win_7_3():
    result = replay_record(golden.WIN, trump_seat=0)
    assert result.tricks == (7, 3)
    assert result.trick_winners == golden.WIN_WINNERS
    assert result.bavan is None
    assert not result.vote_pending
    assert result.outcome is not None
    assert (result.outcome.outcome, result.outcome.winner) == (Outcome.WIN, Team.A)
    assert result.hands_left[0] == mask_of(map(parse_card, ["7H", "6H", "5H"]))


def test_kort_with_stop():
    result = replay_record(golden.KORT, trump_seat=0, bavan="stop")
    assert result.tricks == (7, 0)
    assert result.bavan == BavanDecision.STOP
    assert result.outcome is not None
    assert (result.outcome.outcome, result.outcome.wins_awarded) == (Outcome.KORT, 5)


def test_7_0_without_a_decision_is_a_pending_vote():
    result = replay_record(golden.KORT, trump_seat=0)
    assert result.vote_pending
    assert result.bavan is None
    assert result.outcome is None
    assert result.tricks == (7, 0)
    # the shown hands of the 7:0 team: seat 0 has 7S..2S left
    assert result.hands_left[0] == mask_of(map(parse_card, ["7S", "6S", "5S", "4S", "3S", "2S"]))


def test_at_kort_with_stop():
    result = replay_record(golden.AT_KORT, trump_seat=1, bavan=BavanDecision.STOP)
    assert result.outcome is not None
    assert (result.outcome.outcome, result.outcome.winner, result.outcome.wins_awarded) == (
        Outcome.AT_KORT,
        Team.A,
        7,
    )


@pytest.mark.parametrize("bavan", [None, "go", BavanDecision.GO])
def test_play_past_7_0_is_a_bavan(bavan):
    result = replay_record(golden.BAVAN, trump_seat=0, bavan=bavan)
    assert result.bavan == BavanDecision.GO
    assert result.tricks == (13, 0)
    assert result.outcome is not None
    assert (result.outcome.outcome, result.outcome.wins_awarded) == (Outcome.BAVAN, 10)


def test_at_bavan():
    result = replay_record(golden.AT_BAVAN, trump_seat=1)
    assert result.outcome is not None
    assert (result.outcome.outcome, result.outcome.wins_awarded) == (Outcome.AT_BAVAN, 13)


def test_failed_bavan():
    result = replay_record(golden.FAILED, trump_seat=0)
    assert result.tricks == (7, 1)
    assert result.trick_winners == (0,) * 7 + (3,)
    assert result.outcome is not None
    assert (result.outcome.outcome, result.outcome.winner) == (Outcome.BAVAN_FAILED, Team.B)


def test_bavan_after_a_completed_trop():
    result = replay_record(golden.TROP, trump_seat=0)
    assert result.trick_winners == golden.TROP_WINNERS
    assert result.declarations == (Declaration(0, DeclarationKind.TROP, 1),)
    assert result.outcome is not None
    assert result.outcome.outcome == Outcome.BAVAN


EARLY_TRUMP_LEAD = [
    ["7S", "10D", "8S", "10C"],  # (2) leads a trump while holding 8H; seat 0 overtrumps: -> 0
    ["9S", "JC", "4S", "JD"],
    ["JS", "QC", "5S", "QD"],
    ["QS", "KC", "6S", "KD"],
    ["KS", "AC", "8H", "AD"],  # seat 2 is out of spades: 13:0
]


def test_trop_bar_rejects_an_early_trump_lead():
    tricks = golden.TROP["tricks"][:8] + EARLY_TRUMP_LEAD
    rejected(
        edited(golden.TROP, tricks=tricks),
        "play.tricks",
        r"^trick 9: seat 2 led 7S: trump lead barred after a completed Trop \(KORT_RULES §3\)$",
    )


def test_same_early_trump_lead_without_trop_is_legal():
    tricks = golden.TROP["tricks"][:8] + EARLY_TRUMP_LEAD
    result = replay_record(edited(golden.TROP, tricks=tricks, declarations=[]), trump_seat=0)
    assert result.outcome is not None
    assert result.outcome.outcome == Outcome.BAVAN


def test_sar_does_not_bar_trump_leads():
    tricks = golden.TROP["tricks"][:8] + EARLY_TRUMP_LEAD
    declarations = [{"seat": 0, "kind": "sar", "before_trick": 1}]
    result = replay_record(edited(golden.TROP, tricks=tricks, declarations=declarations), 0)
    assert result.tricks == (13, 0)


def test_record_object_and_wire_round_trip():
    record = Record.from_wire(golden.TROP)
    assert record.declarations == (Declaration(0, DeclarationKind.TROP, 1),)
    assert record.to_wire() == golden.TROP
    assert (
        eval(
            repr(record),
            {"Record": Record, "Declaration": Declaration, "DeclarationKind": DeclarationKind},
        )
        == record
    )
    assert replay_record(record, 0) == replay_record(golden.TROP, 0)


def test_declarations_may_be_listed_in_any_order():
    declarations = [
        {"seat": 1, "kind": "sar", "before_trick": 5},
        {"seat": 0, "kind": "trop", "before_trick": 1},
    ]
    result = replay_record(edited(golden.TROP, declarations=declarations), 0)
    assert [d.before_trick for d in result.declarations] == [1, 5]


# -- the shape of the record ------------------------------------------------------------------


def test_not_an_object():
    rejected([], "play", "the record must be an object")


def test_missing_field():
    record = edited(golden.WIN)
    del record["hands"]
    rejected(record, "play.hands", "^hands is required$")


def test_unknown_field():
    rejected(edited(golden.WIN, trumps="S"), "play.trumps", "^trumps is not a field of a record$")


def test_declarations_are_optional():
    record = edited(golden.WIN)
    del record["declarations"]
    assert replay_record(record, 0).tricks == (7, 3)


@pytest.mark.parametrize("hands", ["AS KS", [["AS"], "KS"], None])
@pytest.mark.parametrize("parse", [lambda play: play, Record.from_wire])
def test_hands_must_be_lists_of_lists(hands, parse):
    with pytest.raises(InvalidRecordError, match=r"^hands must be a list of 4 lists of cards"):
        replay_record(parse(edited(golden.WIN, hands=hands)), 0)


@pytest.mark.parametrize("tricks", ["2H AH 2D 2C", ["2H AH 2D 2C"], 7])
@pytest.mark.parametrize("parse", [lambda play: play, Record.from_wire])
def test_tricks_must_be_lists_of_lists(tricks, parse):
    with pytest.raises(InvalidRecordError, match=r"^tricks must be a list of lists of 4 cards"):
        replay_record(parse(edited(golden.WIN, tricks=tricks)), 0)


@pytest.mark.parametrize(
    "declaration",
    [
        {"seat": 0, "kind": "kort", "before_trick": 1},
        {"seat": 4, "kind": "sar", "before_trick": 1},
        {"seat": "0", "kind": "sar", "before_trick": 1},
        {"seat": 0, "kind": "sar"},
        {"seat": 0, "kind": "sar", "before_trick": 1, "extra": 1},
        {"seat": 0, "kind": ["sar"], "before_trick": 1},
        {"seat": 0, "kind": "sar", "before_trick": 1.0},
        "sar",
    ],
)
def test_declaration_shape(declaration):
    rejected(
        edited(golden.WIN, declarations=[declaration]),
        "play.declarations",
        r"^declaration 1: .* is not \{\"seat\": 0..3, \"kind\": \"sar\" \| \"trop\"",
    )


def test_declarations_must_be_a_list():
    rejected(edited(golden.WIN, declarations="sar"), "play.declarations", "must be a list")


# -- the deal ---------------------------------------------------------------------------------


def test_trump_suit():
    rejected(edited(golden.WIN, trump_suit="T"), "play.trump_suit", "'T' is not a suit")


@pytest.mark.parametrize("seat", [4, -1, "0", 1.0, None])
def test_trump_seat(seat):
    rejected(golden.WIN, "trump_seat", "is not a seat", trump_seat=seat)


def test_hand_with_a_bad_card_name():
    hands = copy.deepcopy(golden.WIN_HANDS)
    hands[1][4] = "1S"
    rejected(edited(golden.WIN, hands=hands), "play.hands", "^seat 1, card 5: '1S' is not a card")


def test_hand_with_12_cards():
    hands = copy.deepcopy(golden.WIN_HANDS)
    del hands[2][0]
    rejected(edited(golden.WIN, hands=hands), "play.hands", "seat 2 holds 12 cards")


def test_hand_with_a_card_twice():
    hands = copy.deepcopy(golden.WIN_HANDS)
    hands[3][1] = hands[3][0]
    rejected(edited(golden.WIN, hands=hands), "play.hands", "^seat 3: AC is listed twice$")


def test_card_in_two_hands():
    hands = copy.deepcopy(golden.WIN_HANDS)
    hands[2][12] = "2C"
    rejected(
        edited(golden.WIN, hands=hands), "play.hands", "2C is dealt twice, to seat 2 and seat 3"
    )


def test_five_hands():
    hands = [*copy.deepcopy(golden.WIN_HANDS), []]
    rejected(edited(golden.WIN, hands=hands), "play.hands", "a deal has 4 hands, got 5")


# -- the tricks -------------------------------------------------------------------------------


def test_trick_of_three_cards():
    tricks = copy.deepcopy(golden.WIN["tricks"])
    tricks[2] = tricks[2][:3]
    rejected(
        edited(golden.WIN, tricks=tricks), "play.tricks", "^trick 3 has 3 cards; a trick has 4"
    )


def test_bad_card_name_in_a_trick():
    tricks = copy.deepcopy(golden.WIN["tricks"])
    tricks[1][2] = "3X"
    rejected(
        edited(golden.WIN, tricks=tricks),
        "play.tricks",
        "^trick 2, seat 3: '3X' is not a card",
    )


def test_card_not_held():
    tricks = copy.deepcopy(golden.WIN["tricks"])
    tricks[0][1] = "AD"
    rejected(
        edited(golden.WIN, tricks=tricks),
        "play.tricks",
        "^trick 1: seat 1 played AD but does not hold it$",
    )


def test_revoke_names_trick_seat_card_and_rule():
    tricks = copy.deepcopy(golden.WIN["tricks"])
    tricks[3] = ["KH", "5D", "5C", "AS"]  # seat 0 ruffs holding hearts
    tricks[1:4] = [["KH", "3D", "3C", "AS"]]
    rejected(
        edited(golden.WIN, tricks=tricks),
        "play.tricks",
        "^trick 2: seat 0 played AS holding a heart after a heart lead$",
    )


def test_trick_after_the_end_of_a_7_3():
    tricks = [*copy.deepcopy(golden.WIN["tricks"]), ["7H", "10H", "QD", "QC"]]
    rejected(
        edited(golden.WIN, tricks=tricks),
        "play.tricks",
        r"^trick 11: the round ended at 7:3 \(A:B\) after trick 10; no further trick is played",
    )


def test_trick_after_a_failed_bavan():
    tricks = [*copy.deepcopy(golden.FAILED["tricks"]), ["KH", "10C", "10D", "7H"]]
    rejected(
        edited(golden.FAILED, tricks=tricks), "play.tricks", "^trick 9: the round ended at 7:1"
    )


def test_record_that_stops_before_7():
    rejected(
        edited(golden.WIN, tricks=golden.WIN["tricks"][:9]),
        "play.tricks",
        r"^the record stops after trick 9 at 6:3 \(A:B\), before the end: play goes on until a "
        r"team has 7 tricks \(KORT_RULES §1\)$",
    )


def test_bavan_record_that_stops_before_its_end():
    rejected(
        edited(golden.BAVAN, tricks=golden.BAVAN["tricks"][:10]),
        "play.tricks",
        r"stops after trick 10 at 10:0 \(A:B\), before the end: a Bavan goes on until 13:0",
    )


def test_go_given_but_the_record_stops_at_7_0():
    rejected(golden.KORT, "play.tricks", "stops after trick 7 at 7:0", bavan="go")


def test_stop_given_but_the_record_goes_on():
    rejected(
        golden.BAVAN,
        "play.tricks",
        r"^trick 8: the record goes on after 7:0, but the decision is stop \(KORT_RULES §4\)$",
        bavan="stop",
    )


def test_decision_given_without_a_7_0():
    rejected(
        golden.WIN,
        "bavan",
        r"decision \(stop\) was given, but the round ended at 7:3",
        bavan="stop",
    )


def test_decision_must_be_go_or_stop():
    rejected(golden.KORT, "bavan", "'vote' is not a Bavan decision", bavan="vote")


# -- declarations -----------------------------------------------------------------------------


def test_declaration_before_a_trick_that_is_not_played():
    declarations = [{"seat": 0, "kind": "sar", "before_trick": 11}]
    rejected(
        edited(golden.WIN, declarations=declarations),
        "play.declarations",
        "^declaration 1: before trick 11, but the record has tricks 1..10",
    )


def test_declaration_before_trick_0():
    declarations = [{"seat": 0, "kind": "sar", "before_trick": 0}]
    rejected(edited(golden.WIN, declarations=declarations), "play.declarations", "before trick 0")


def test_trop_from_5_tricks_is_refused():
    declarations = [{"seat": 2, "kind": "trop", "before_trick": 6}]
    rejected(
        edited(golden.KORT, declarations=declarations),
        "play.declarations",
        r"^before trick 6: seat 2 may not declare trop with 5 tricks",
    )


def test_trop_on_bavan_is_allowed():
    declarations = [{"seat": 2, "kind": "trop", "before_trick": 9}]
    result = replay_record(edited(golden.BAVAN, declarations=declarations), 0)
    assert result.declarations == (Declaration(2, DeclarationKind.TROP, 9),)


def test_two_declarations_of_one_team_before_a_trick():
    declarations = [
        {"seat": 1, "kind": "sar", "before_trick": 3},
        {"seat": 3, "kind": "sar", "before_trick": 3},
    ]
    rejected(
        edited(golden.WIN, declarations=declarations),
        "play.declarations",
        "^before trick 3: seat 3 may not declare twice",
    )


def test_replay_does_not_change_the_record():
    record = copy.deepcopy(golden.TROP)
    replay_record(record, 0)
    assert record == golden.TROP

import random

import pytest

from matches.kort.bots import choose_trump, deal, greedy_card, play_round
from matches.kort.cards import Suit, mask_of, parse_card
from matches.kort.engine import RoundState
from matches.kort.replay import replay_record
from matches.kort.rules import BavanDecision
from tests.matches.kort import golden_rounds as golden


def test_deal_is_a_full_deck_in_four_hands_of_13():
    hands = deal(7)
    assert [len(hand) for hand in hands] == [13, 13, 13, 13]
    assert sorted(card for hand in hands for card in hand) == list(range(52))


def test_deal_is_reproducible_from_a_seed_or_a_generator():
    assert deal(7) == deal(7) == deal(random.Random(7))
    assert deal(7) != deal(8)


@pytest.mark.parametrize(
    ("first_five", "trump"),
    [
        (["AS", "KH", "QH", "2C", "3D"], Suit.H),  # most cards
        (["AS", "KS", "2H", "3H", "4D"], Suit.S),  # tie on count: higher ranks
        (["AS", "2S", "AH", "2H", "5D"], Suit.S),  # full tie: S before H
        (["2C", "3C", "4C", "AS", "AH"], Suit.C),
    ],
)
def test_choose_trump_from_the_first_five(first_five, trump):
    assert choose_trump([parse_card(name) for name in first_five]) == trump


def test_play_round_is_reproducible_and_legal():
    record = play_round(11, trump_seat=2)
    assert record == play_round(11, trump_seat=2)
    assert record != play_round(12, trump_seat=2)
    assert set(record) == {"trump_suit", "hands", "tricks", "declarations"}
    result = replay_record(record, trump_seat=2)
    assert max(result.tricks) >= 7


def test_trump_is_named_from_the_callers_first_five_dealt_cards():
    for seed in range(20):
        record = play_round(seed, trump_seat=seed % 4)
        first_five = [parse_card(name) for name in record["hands"][seed % 4][:5]]
        assert record["trump_suit"] == choose_trump(first_five).letter


def test_policy_none_leaves_a_7_0_pending_and_stop_ends_it():
    shutouts = [s for s in range(400) if len(play_round(s, 0, None)["tricks"]) == 7]
    assert shutouts, "some random rounds end 7:0"
    for seed in shutouts:
        pending = replay_record(play_round(seed, 0, None), 0)
        assert pending.vote_pending
        assert play_round(seed, 0, BavanDecision.STOP) == play_round(seed, 0, None)
        assert len(play_round(seed, 0, BavanDecision.GO)["tricks"]) > 7


def test_declarations_are_made_and_replay():
    record = play_round(5, 1, BavanDecision.GO, "greedy", declaration_rate=1.0)
    assert record["declarations"]
    assert replay_record(record, 1).declarations


def test_unknown_strategy():
    with pytest.raises(KeyError):
        play_round(1, 0, strategy="clever")


def test_greedy_leads_high_then_follows_cheap():
    hands = [mask_of(map(parse_card, hand)) for hand in golden.WIN_HANDS]
    state = RoundState(hands, Suit.S, 0)
    rng = random.Random(0)
    assert greedy_card(state, rng) == parse_card("AS")
    state.play(parse_card("AS"))
    assert greedy_card(state, rng) == parse_card("2S")  # cannot take AS: lowest spade
    state.play(parse_card("2S"))
    assert greedy_card(state, rng) == parse_card("2D")  # partner holds the trick


def test_greedy_takes_with_the_cheapest_winning_card():
    hands = [mask_of(map(parse_card, hand)) for hand in golden.WIN_HANDS]
    state = RoundState(hands, Suit.S, 0)
    state.play(parse_card("5H"))
    assert greedy_card(state, random.Random(0)) == parse_card("8H")

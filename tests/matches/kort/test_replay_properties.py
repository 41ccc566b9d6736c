"""Properties of replay over rounds played by seeded random bots (KORT_RULES §1, §3).

The oracle below re-derives takers, legality and the stopping rule from the card names alone,
independently of the engine's bit tables.
"""

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matches.kort.bots import play_round
from matches.kort.replay import InvalidRecordError, replay_record
from matches.kort.rules import BavanDecision

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]

rounds = st.builds(
    lambda seed, trump_seat, policy, strategy, rate: (
        play_round(seed, trump_seat, policy, strategy, rate),
        trump_seat,
        policy,
    ),
    st.integers(0, 2**32),
    st.integers(0, 3),
    st.sampled_from([BavanDecision.GO, BavanDecision.STOP, None]),
    st.sampled_from(["random", "greedy"]),
    st.sampled_from([0.0, 0.3]),
)
checks = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def oracle(record, trump_seat):
    """Takers and final tricks (A, B) from names; asserts every card is held and follows suit."""
    trump = record["trump_suit"]
    hands = [set(hand) for hand in record["hands"]]
    winners: list[int] = []
    leader, taken = trump_seat, [0, 0]
    for trick in record["tricks"]:
        assert not _ended(taken, bavan_team=_bavan_team(taken, len(winners)))
        led = trick[0][-1]
        for position, name in enumerate(trick):
            hand = hands[(leader + position) % 4]
            assert name in hand
            assert name[-1] == led or position == 0 or all(c[-1] != led for c in hand)
            hand.remove(name)
        best = max(range(4), key=lambda i: _power(trick[i], led, trump))
        leader = (leader + best) % 4
        winners.append(leader)
        taken[leader % 2] += 1
    return tuple(winners), (taken[0], taken[1])


def _power(name, led, trump):
    suit_order = 2 if name[-1] == trump else 1 if name[-1] == led else 0
    return suit_order, RANKS.index(name[:-1])


def _bavan_team(taken, played):
    """After 7 tricks at 7:0 and beyond, the team with every trick is on Bavan."""
    if played >= 7 and min(taken) == 0:
        return 0 if taken[0] else 1
    return None


def _ended(taken, bavan_team):
    if bavan_team is not None:
        return taken[bavan_team] == 13
    return max(taken) >= 7 and min(taken) >= 1


def given_decision(record, policy):
    """What a report would carry with the record: ``stop`` when the bots stopped at 7:0."""
    stopped = len(record["tricks"]) == 7 and policy == BavanDecision.STOP
    return policy if stopped else None


@checks
@given(rounds)
def test_any_bot_round_replays_to_the_oracle(round_):
    record, trump_seat, policy = round_
    winners, tricks = oracle(record, trump_seat)
    result = replay_record(record, trump_seat, given_decision(record, policy))
    assert result.trick_winners == winners
    assert result.tricks == tricks
    shutout = len(winners) >= 7 and len({seat % 2 for seat in winners[:7]}) == 1
    assert result.vote_pending == (shutout and len(winners) == 7 and policy is None)
    assert (result.outcome is None) == result.vote_pending
    assert result.bavan == (policy if shutout and not result.vote_pending else None)
    assert len(result.declarations) == len(record["declarations"])


def seats_of_plays(record, trump_seat, winners):
    leaders = [trump_seat, *winners]
    return [[(leaders[t] + p) % 4 for p in range(4)] for t in range(len(record["tricks"]))]


@checks
@given(rounds, st.data())
def test_changing_a_dealt_card_is_rejected(round_, data):
    record, trump_seat, policy = round_
    seat = data.draw(st.integers(0, 3))
    position = data.draw(st.integers(0, 12))
    others = [c for h in record["hands"] for c in h if c != record["hands"][seat][position]]
    corrupted = copy.deepcopy(record)
    corrupted["hands"][seat][position] = data.draw(st.sampled_from(others))
    with pytest.raises(InvalidRecordError) as caught:
        replay_record(corrupted, trump_seat, given_decision(record, policy))
    assert caught.value.field == "play.hands"


@checks
@given(rounds, st.data())
def test_changing_a_played_card_is_rejected(round_, data):
    """Any replacement but a card its seat still holds at the end (that may be a valid round)."""
    record, trump_seat, policy = round_
    result = replay_record(record, trump_seat, given_decision(record, policy))
    trick = data.draw(st.integers(0, len(record["tricks"]) - 1))
    position = data.draw(st.integers(0, 3))
    seat = seats_of_plays(record, trump_seat, result.trick_winners)[trick][position]
    kept = {c for c in record["hands"][seat] if not any(c in t for t in record["tricks"])}
    original = record["tricks"][trick][position]
    choices = [c for h in record["hands"] for c in h if c != original and c not in kept]
    corrupted = copy.deepcopy(record)
    corrupted["tricks"][trick][position] = data.draw(st.sampled_from(choices))
    with pytest.raises(InvalidRecordError, match=r"^trick \d+[:,] "):
        replay_record(corrupted, trump_seat, given_decision(record, policy))


@checks
@given(rounds, st.data(), st.sampled_from(["drop", "duplicate"]))
def test_dropping_or_duplicating_a_card_is_rejected(round_, data, edit):
    record, trump_seat, policy = round_
    part = data.draw(st.sampled_from(["hands", "tricks"]))
    row = data.draw(st.integers(0, len(record[part]) - 1))
    position = data.draw(st.integers(0, len(record[part][row]) - 1))
    corrupted = copy.deepcopy(record)
    cards = corrupted[part][row]
    if edit == "drop":
        del cards[position]
    else:
        cards.insert(position, cards[position])
    with pytest.raises(InvalidRecordError) as caught:
        replay_record(corrupted, trump_seat, given_decision(record, policy))
    assert caught.value.field == f"play.{part}"

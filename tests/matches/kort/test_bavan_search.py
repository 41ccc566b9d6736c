"""The guaranteed-Bavan search (KORT_RULES §6): exact against a brute-force oracle, and on
positions whose answer is worked out by hand from §3 and §6.

The oracle (``bavan_oracle``) enumerates every split of the unknown cards and searches over what
the team has seen; it shares no code with the search. Random positions are small (1 to 3 tricks,
and some of 4) and biased to high team cards, so that both answers are common.
"""

import random

import pytest

from matches.kort.bavan_search import InvalidPositionError, bavan_guaranteed
from matches.kort.cards import card_name, mask_of, parse_card, parse_suit
from matches.kort.engine import DeclarationKind, IllegalPlayError, RoundState
from matches.kort.rules import BavanDecision, Outcome
from tests.matches.kort.bavan_oracle import Position, guaranteed


def cards(names: str) -> frozenset[int]:
    return frozenset(parse_card(name) for name in names.split())


def position(team, unknown, trump="S", leader=0, bar=False, voids=None) -> Position:
    """A position from wire names: ``team`` seat -> "AS KS", voids seat -> "HD"."""
    return Position(
        team={seat: cards(names) for seat, names in team.items()},
        unknown=cards(unknown),
        trump=parse_suit(trump),
        leader=leader,
        bar=bar,
        voids={seat: frozenset(map(parse_suit, suits)) for seat, suits in (voids or {}).items()},
    )


def search(p: Position):
    return bavan_guaranteed(
        {seat: mask_of(hand) for seat, hand in p.team.items()},
        mask_of(p.unknown),
        p.trump,
        p.leader,
        p.bar,
        {seat: sum(1 << suit for suit in suits) for seat, suits in p.voids.items()},
    )


def assert_agrees(p: Position) -> bool:
    """The search agrees with the oracle, and its first card keeps the Bavan guaranteed."""
    result = search(p)
    expected = guaranteed(p)
    assert result.guaranteed == expected, p
    if expected:
        assert guaranteed(p, result.first_card), (p, card_name(result.first_card))
    else:
        assert result.first_card is None
    return expected


# -- random positions against the oracle ----------------------------------------------------------


def random_position(rng: random.Random, size: int) -> Position:
    """A position with ``size`` cards a hand, drawn from 2 to 4 suits and the upper ranks, the
    team holding mostly the higher cards; voids drawn from suits an opponent really lacks."""
    suits = rng.sample(range(4), rng.randint(2, 4))
    per_suit = -(-4 * size // len(suits))
    low = rng.randint(0, 13 - max(2, per_suit))
    dealt = rng.sample([suit * 13 + rank for suit in suits for rank in range(low, 13)], 4 * size)
    dealt.sort(key=lambda card: card % 13 + 8 * rng.random(), reverse=True)
    team, others = dealt[: 2 * size], dealt[2 * size :]
    if rng.random() < 0.2:
        team, others = others, team
    rng.shuffle(team)
    rng.shuffle(others)
    first = rng.randrange(2)
    voids = {}
    for seat, hand in ((first + 1, others[:size]), ((first + 3) % 4, others[size:])):
        lacking = {suit for suit in range(4)} - {card // 13 for card in hand}
        shown = frozenset(suit for suit in lacking if rng.random() < 0.35)
        if shown:
            voids[seat] = shown
    return Position(
        team={first: frozenset(team[:size]), first + 2: frozenset(team[size:])},
        unknown=frozenset(others),
        trump=rng.choice(suits) if rng.random() < 0.9 else rng.randrange(4),
        leader=first + 2 * rng.randrange(2),
        bar=rng.random() < 0.3,
        voids=voids,
    )


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_the_oracle_up_to_three_tricks(seed):
    rng = random.Random(seed)
    answers = [assert_agrees(random_position(rng, rng.randint(1, 3))) for _ in range(250)]
    assert 0.2 < sum(answers) / len(answers) < 0.8  # both answers well represented


@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_the_oracle_on_four_tricks(seed):
    rng = random.Random(1000 + seed)
    answers = [assert_agrees(random_position(rng, 4)) for _ in range(100)]
    assert any(answers)
    assert not all(answers)


# -- positions worked out by hand -----------------------------------------------------------------


def test_every_trump_and_the_top_of_every_side_suit_is_guaranteed():
    p = position(
        {0: "AS KS QS JS AH KH", 2: "AD KD QD AC KC QC"},
        "JH 10H 9H 8H JD 10D 9D 8D JC 10C 9C 8C",
    )
    assert search(p).guaranteed


def test_a_king_the_leader_must_lead_into_an_outstanding_ace_fails():
    # Seat 0 keeps the lead (its partner cannot overtake a trump and holds no heart), so it
    # must lead KH at the end, and the opponent holding AH takes it.
    p = position(
        {0: "AS KS QS JS 10S KH", 2: "AD KD QD AC KC QC"},
        "AH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
    )
    result = search(p)
    assert not result.guaranteed
    assert result.first_card is None


BAR_POSITION = {0: "AS AD", 2: "2H 3H"}, "KS 5H QD JD"


def test_only_the_trump_lead_bar_makes_it_fail():
    # Free to lead AS, seat 0 drops KS (its holder must follow), then AD stands. Barred, it must
    # lead AD first, and the split KS 5H / QD JD lets KS ruff it.
    free = position(*BAR_POSITION)
    barred = position(*BAR_POSITION, bar=True)
    assert search(free).first_card == parse_card("AS")
    assert not search(barred).guaranteed
    assert_agrees(free)
    assert_agrees(barred)


def test_a_shown_void_makes_it_guaranteed():
    # Seat 1 has shown out of hearts, seat 3 of spades: seat 1 holds KS and a diamond, seat 3
    # 5H and a diamond; both follow AD, then AS drops KS.
    shown = position(*BAR_POSITION, bar=True, voids={1: "H", 3: "S"})
    result = search(shown)
    assert result.guaranteed
    assert result.first_card == parse_card("AD")
    assert_agrees(shown)


def test_a_barred_leader_holding_only_trumps_leads_one():
    p = position({0: "AS KS", 2: "AH KH"}, "2D 3D 4D 5D", bar=True)
    assert search(p) == search(position({0: "AS KS", 2: "AH KH"}, "2D 3D 4D 5D"))
    assert search(p).guaranteed
    assert_agrees(p)


def test_a_trump_lead_from_a_hand_of_trumps_does_not_lift_the_bar():
    # Whatever seat 0 leads, the opponents can make the partner overtake (QS must be beaten);
    # the partner then holds a trump and AH. Free, it draws the last trump and AH stands;
    # barred, it must lead AH, and the opponent with the last trump may be out of hearts.
    hands = {0: "8S 9S 10S", 2: "KS AS AH"}
    unknown = "JS QS JH QH 8D 9D"
    assert search(position(hands, unknown)).guaranteed
    assert not search(position(hands, unknown, bar=True)).guaranteed
    assert_agrees(position(hands, unknown))
    assert_agrees(position(hands, unknown, bar=True))


# -- a real round, replayed with the engine -------------------------------------------------------

SEVEN_TRICKS = [  # seats 0, 1, 2, 3; seat 0 leads and takes each trick
    "QS 2S 3S 4S",
    "JS 5S 6S 7S",
    "10S 8S 9S 2C",  # seat 3 shows out of spades
    "AH 8H 9H 10H",
    "KH JH QH 3C",  # seat 3 shows out of hearts
    "9C 4C 5C 6C",
    "8C 7C 2D 3D",  # seat 3 shows out of clubs
]
LEFT = ["AS AC KC QC JC 10C", "KS AD KD QD JD 10D", "2H 3H 4H 5H 6H 7H", "9D 8D 7D 6D 5D 4D"]


def round_at_kort(trop: bool) -> RoundState:
    """Spades trump, seat 0 calls, takes the first 7 tricks and the team goes for Bavan."""
    played = [trick.split() for trick in SEVEN_TRICKS]
    hands = [
        mask_of(parse_card(name) for name in [*LEFT[seat].split(), *(t[seat] for t in played)])
        for seat in range(4)
    ]
    state = RoundState(hands, parse_suit("S"), 0)
    if trop:
        state.declare(0, DeclarationKind.TROP)
    for trick in played:
        for name in trick:
            state.play(parse_card(name))
    state.decide_bavan(BavanDecision.GO)
    return state


def position_of(state: RoundState) -> Position:
    """The position the Bavan team sees (§4, §6): its hands, the rest unknown, the shown voids."""
    leader = state.to_play
    hands = state.hands
    voids: dict[int, set[int]] = {}
    for trick in state.tricks:
        led = trick.cards[0] // 13
        for offset, card in enumerate(trick.cards):
            seat = (trick.leader + offset) % 4
            if card // 13 != led and seat % 2 != leader % 2:
                voids.setdefault(seat, set()).add(led)
    return Position(
        team={seat: frozenset(_cards(hands[seat])) for seat in (leader, leader ^ 2)},
        unknown=frozenset(_cards(hands[leader ^ 1] | hands[leader ^ 3])),
        trump=state.trump_suit,
        leader=leader,
        bar=state.trop_bar,
        voids={seat: frozenset(suits) for seat, suits in voids.items()},
    )


def _cards(mask: int) -> list[int]:
    return [card for card in range(52) if mask >> card & 1]


@pytest.mark.parametrize("seed", range(5))
def test_replayed_round_without_trop_the_search_leads_to_13_0(seed):
    # Seat 0 leads AS (KS must follow), then its clubs stand. Each team lead is the search's
    # first card; the partner plays its lowest legal card, the opponents any legal card.
    rng = random.Random(seed)
    state = round_at_kort(trop=False)
    while not state.is_over:
        seat = state.to_play
        if seat % 2:
            state.play(rng.choice(state.legal_cards()))
        elif state.current_trick:
            state.play(state.legal_cards()[0])
        else:
            result = search(position_of(state))
            assert result.guaranteed
            state.play(result.first_card)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.outcome == Outcome.BAVAN


def test_replayed_round_after_a_trop_is_not_guaranteed():
    # Barred, seat 0 must lead a club; seat 1 (KS and diamonds: seat 3 has shown out of every
    # other suit) ruffs it. The engine refuses the trump lead that would have drawn KS.
    state = round_at_kort(trop=True)
    p = position_of(state)
    assert p.bar and p.voids == {3: frozenset({0, 1, 3})}
    assert not search(p).guaranteed
    with pytest.raises(IllegalPlayError, match="trump lead barred"):
        state.play(parse_card("AS"))


# -- validation ---------------------------------------------------------------------------------


def masks(names: str) -> int:
    return mask_of(cards(names))


GOOD = {
    "team_hands": {0: masks("AS KS"), 2: masks("AH KH")},
    "unknown": masks("2D 3D 4D 5D"),
    "trump": 0,
    "leader": 0,
    "trop_bar": False,
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"team_hands": {0: masks("AS KS"), 1: masks("AH KH")}}, "hands"),
        ({"team_hands": {0: masks("AS KS"), 2: masks("AH")}}, "hands"),
        ({"team_hands": {0: masks("AS KS"), 2: masks("AS KH")}}, "hands"),
        ({"team_hands": {0: 0, 2: 0}, "unknown": 0}, "hands"),
        (
            {"team_hands": {0: masks("AS KS QS JS 10S 9S 8S"), 2: masks("AH KH QH JH 10H 9H 8H")}},
            "hands",
        ),
        ({"team_hands": {0: -1, 2: masks("AH KH")}}, "hands"),
        ({"unknown": masks("2D 3D 4D")}, "unknown"),
        ({"unknown": masks("2D 3D 4D AS")}, "unknown"),
        ({"trump": 4}, "trump_suit"),
        ({"leader": 1}, "leader"),
        ({"trop_bar": 1}, "trop_bar"),
        ({"voids": {2: 1}}, "voids"),
        ({"voids": {1: 16}}, "voids"),
        ({"voids": {1: 1 << 2, 3: 1 << 2}}, "voids"),  # nobody may hold the diamonds
        ({"voids": {1: 1 << 2}}, "voids"),  # seat 3 cannot hold 4 diamonds in 2 cards
    ],
)
def test_refuses_a_bad_position(change, field):
    with pytest.raises(InvalidPositionError) as refused:
        bavan_guaranteed(**{**GOOD, **change})
    assert refused.value.field == field

"""A slow, plain oracle for the guaranteed Bavan of KORT_RULES §6, written from the rule text.

Every split of the unknown cards between the two opponents is a world. The search runs over what
the team has seen: the team picks one card for all worlds still consistent with the plays so far;
an opponent may play any card that is legal in some consistent world, which keeps only the worlds
where it holds that card and may play it. Cards are ints (``suit * 13 + rank``); suits and ranks
are computed here by division, the rules written out again, so nothing is shared with the search.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations


def suit(card: int) -> int:
    return card // 13


@dataclass(frozen=True)
class Position:
    """A Bavan position: team seat -> its cards, the unknown cards, trump, leader, bar, voids."""

    team: dict[int, frozenset[int]]
    unknown: frozenset[int]
    trump: int
    leader: int
    bar: bool
    voids: dict[int, frozenset[int]]

    @property
    def opponents(self) -> tuple[int, int]:
        low = (self.leader + 1) % 2
        return low, low + 2


def worlds_of(position: Position) -> frozenset[tuple[frozenset[int], frozenset[int]]]:
    """Every split (hand of the lower opponent seat, hand of the higher one) the voids allow."""
    size = len(position.unknown) // 2
    low, high = position.opponents
    worlds = set()
    for chosen in combinations(sorted(position.unknown), size):
        first = frozenset(chosen)
        second = position.unknown - first
        if avoids(first, position.voids.get(low, ())) and avoids(
            second, position.voids.get(high, ())
        ):
            worlds.add((first, second))
    return frozenset(worlds)


def avoids(hand: frozenset[int], suits) -> bool:
    return all(suit(card) not in suits for card in hand)


def may_play(hand, card: int, table: tuple[int, ...]) -> bool:
    """Follow the led suit when holding it, else anything (KORT_RULES §1)."""
    if card not in hand:
        return False
    if not table:
        return True
    led = suit(table[0])
    return suit(card) == led or all(suit(other) != led for other in hand)


def may_lead(hand, card: int, trump: int, barred: bool) -> bool:
    """No trump lead under the bar, unless the hand holds only trumps (KORT_RULES §3)."""
    if card not in hand:
        return False
    return not barred or suit(card) != trump or all(suit(other) == trump for other in hand)


def taker(table: tuple[int, ...], leader: int, trump: int) -> int:
    """The seat whose card takes the trick: the highest trump, else the highest of the led suit."""

    def strength(card: int) -> int:
        if suit(card) == trump:
            return 200 + card
        if suit(card) == suit(table[0]):
            return 100 + card
        return 0

    best = max(range(4), key=lambda i: strength(table[i]))
    return (leader + best) % 4


def guaranteed(position: Position, first: int | None = None) -> bool:
    """Whether the team takes every trick for sure; with ``first``, after leading that card."""
    team = tuple(sorted(position.team.items()))
    worlds = worlds_of(position)
    low = position.opponents[0]
    solve = _solver(position.trump, low)
    if first is None:
        return solve(team, worlds, position.leader, (), position.bar)
    hand = position.team[position.leader]
    if not may_lead(hand, first, position.trump, position.bar):
        return False
    after = tuple((seat, cards - {first}) for seat, cards in team)
    barred = position.bar and suit(first) == position.trump
    return solve(after, worlds, position.leader, (first,), barred)


def _solver(trump: int, low_opponent: int):
    @cache
    def solve(team, worlds, leader, table, barred) -> bool:
        if len(table) == 4:
            winner = taker(table, leader, trump)
            if winner % 2 == low_opponent % 2:
                return False
            if not any(cards for _, cards in team):
                return True
            return solve(team, worlds, winner, (), barred)
        seat = (leader + len(table)) % 4
        hands = dict(team)
        if seat in hands:
            return any(
                solve(
                    _without(team, seat, card),
                    worlds,
                    leader,
                    (*table, card),
                    barred and (bool(table) or suit(card) == trump),
                )
                for card in sorted(hands[seat], reverse=True)
                if (
                    may_play(hands[seat], card, table)
                    if table
                    else may_lead(hands[seat], card, trump, barred)
                )
            )
        side = 0 if seat == low_opponent else 1
        playable = {
            card for world in worlds for card in world[side] if may_play(world[side], card, table)
        }
        return all(
            solve(team, _after(worlds, side, card, table), leader, (*table, card), barred)
            for card in sorted(playable, key=lambda card: (suit(card) == trump, card), reverse=True)
        )

    return solve


def _without(team, seat, card):
    return tuple((s, cards - {card} if s == seat else cards) for s, cards in team)


def _after(worlds, side, card, table):
    kept = set()
    for world in worlds:
        if may_play(world[side], card, table):
            hands = list(world)
            hands[side] = hands[side] - {card}
            kept.add(tuple(hands))
    return frozenset(kept)

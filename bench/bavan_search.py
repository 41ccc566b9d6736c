"""Time of the guaranteed-Bavan search (KORT_RULES §6) on seeded 7:0 positions, on one core.

Usage: python bench/bavan_search.py [positions] [seed]

Half the positions come from bot rounds that reached 7:0 (greedy and random bots, with
declarations, so some carry the trump-lead bar after a Trop, and voids shown in the 7 tricks).
The other half are built from a deal: each team seat keeps its 6 strongest cards (by rank, trumps
weighted up, with noise), each opponent 6 random ones; an opponent shows out of a suit it no longer
holds with chance 0.4, and a quarter carry the bar. Prints the median, 99th percentile and worst
time of one call of ``bavan_guaranteed`` (validation included), and the share guaranteed.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from matches.kort.bavan_search import bavan_guaranteed
from matches.kort.bots import choose_trump, deal, play_round
from matches.kort.cards import CARD_BY_NAME, RANK_OF, SUIT_OF, mask_of, parse_suit
from matches.kort.replay import replay_record
from matches.kort.rules import TRICKS_TO_WIN

Position = tuple[dict[int, int], int, int, int, bool, dict[int, int]]
"""The arguments of ``bavan_guaranteed``: team hands, unknown, trump, leader, bar, voids."""

KEPT = 6
TRUMP_WEIGHT = 6
NOISE = 8
SHOW_OUT = 0.4
BARRED = 0.25


def bot_positions(count: int, rng: random.Random) -> list[Position]:
    """``count`` positions at 7:0 from seeded bot rounds (vote left pending)."""
    found: list[Position] = []
    while len(found) < count:
        seed, trump_seat = rng.getrandbits(32), rng.randrange(4)
        strategy = rng.choice(("greedy", "random"))
        record = play_round(seed, trump_seat, None, strategy, declaration_rate=0.3)
        if len(record["tricks"]) == TRICKS_TO_WIN:
            found.append(_position_of(record, trump_seat))
    return found


def _position_of(record: dict, trump_seat: int) -> Position:
    result = replay_record(record, trump_seat)
    trump = parse_suit(record["trump_suit"])
    leader = result.trick_winners[-1]
    team = {seat: result.hands_left[seat] for seat in (leader, leader ^ 2)}
    unknown = result.hands_left[leader ^ 1] | result.hands_left[leader ^ 3]
    bar = any(d.kind == "trop" and d.seat & 1 == leader & 1 for d in result.declarations)
    voids: dict[int, int] = {}
    leaders = (trump_seat, *result.trick_winners)
    for first, trick in zip(leaders, record["tricks"], strict=False):
        led = SUIT_OF[CARD_BY_NAME[trick[0]]]
        for offset, name in enumerate(trick):
            if SUIT_OF[CARD_BY_NAME[name]] != led:
                seat = (first + offset) & 3
                voids[seat] = voids.get(seat, 0) | 1 << led
    voids = {seat: suits for seat, suits in voids.items() if seat & 1 != leader & 1}
    return team, unknown, trump, leader, bar, voids


def built_positions(count: int, rng: random.Random) -> list[Position]:
    """``count`` positions built from deals, the team keeping strong cards."""
    found: list[Position] = []
    for _ in range(count):
        hands = deal(rng)
        caller = rng.randrange(4)
        trump = choose_trump(hands[caller][:5])
        leader = caller if rng.random() < 0.7 else caller ^ 1
        leader ^= rng.choice((0, 2))
        kept = [_strongest(hand, trump, rng) for hand in hands]
        for seat in (leader ^ 1, leader ^ 3):
            kept[seat] = rng.sample(hands[seat], KEPT)
        team = {seat: mask_of(kept[seat]) for seat in (leader, leader ^ 2)}
        unknown = mask_of(kept[leader ^ 1]) | mask_of(kept[leader ^ 3])
        voids = {seat: _shown_out(kept[seat], rng) for seat in (leader ^ 1, leader ^ 3)}
        found.append((team, unknown, trump, leader, rng.random() < BARRED, voids))
    return found


def _strongest(hand: list[int], trump: int, rng: random.Random) -> list[int]:
    def strength(card: int) -> float:
        return RANK_OF[card] + TRUMP_WEIGHT * (SUIT_OF[card] == trump) + NOISE * rng.random()

    return sorted(hand, key=strength)[-KEPT:]


def _shown_out(hand: list[int], rng: random.Random) -> int:
    held = {SUIT_OF[card] for card in hand}
    return sum(1 << suit for suit in range(4) if suit not in held and rng.random() < SHOW_OUT)


def timed(positions: list[Position]) -> list[tuple[float, bool]]:
    """Seconds of one call per position, and whether it is guaranteed."""
    results = []
    for position in positions:
        start = time.perf_counter()
        result = bavan_guaranteed(*position)
        results.append((time.perf_counter() - start, result.guaranteed))
    return results


def report(label: str, results: list[tuple[float, bool]]) -> None:
    times = sorted(seconds for seconds, _ in results)
    guaranteed = sum(answer for _, answer in results)
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    print(
        f"{label:>8} {len(times):>6} {1e3 * statistics.median(times):>9.3f} "
        f"{1e3 * p99:>9.3f} {1e3 * times[-1]:>9.3f} {100 * guaranteed / len(times):>11.1f}"
    )


def main() -> None:
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
    from_bots = bot_positions(total // 2, rng)
    positions = from_bots + built_positions(total - total // 2, rng)
    results = timed(positions)
    print(f"Python {sys.version.split()[0]}, one core, ms per position (validation included)")
    print(f"{'source':>8} {'count':>6} {'median':>9} {'p99':>9} {'worst':>9} {'guaranteed%':>11}")
    report("bots", results[: len(from_bots)])
    report("built", results[len(from_bots) :])
    report("barred", [r for r, p in zip(results, positions, strict=True) if p[4]])
    report("voids", [r for r, p in zip(results, positions, strict=True) if any(p[5].values())])
    report("all", results)


if __name__ == "__main__":
    main()

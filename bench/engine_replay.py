"""Full-round replays per second on one core, overall and by record length.

Usage: python bench/engine_replay.py [rounds per length]

Rounds come from seeded random bots (vote left pending at 7:0, so 7-trick records are pending
Korts; longer ones are wins or Bavans). Two figures per length:

- engine: RoundState from four hand masks, then play() of every card as an int (the rules);
- replay: replay_record() of the wire dict (shape checks, parsing the names, the rules, result).
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from matches.kort.bots import play_round
from matches.kort.cards import CARD_BY_NAME, parse_suit
from matches.kort.engine import RoundState
from matches.kort.replay import replay_record
from matches.kort.rules import BavanDecision

LENGTHS = range(7, 14)


def records_by_length(per_length: int) -> dict[int, list[tuple[dict, int]]]:
    """Bot records, ``per_length`` of each length 7..13 tricks, with their trump seat."""
    found: dict[int, list[tuple[dict, int]]] = defaultdict(list)
    seed = 0
    while any(len(found[n]) < per_length for n in LENGTHS):
        trump_seat = seed % 4
        policy = BavanDecision.GO if seed % 2 else None
        record = play_round(seed, trump_seat, policy)
        bucket = found[len(record["tricks"])]
        if len(bucket) < per_length:
            bucket.append((record, trump_seat))
        seed += 1
    return found


def as_ints(record: dict, trump_seat: int) -> tuple[list[int], int, int, list[int]]:
    hands = [sum(1 << CARD_BY_NAME[name] for name in hand) for hand in record["hands"]]
    plays = [CARD_BY_NAME[name] for trick in record["tricks"] for name in trick]
    return hands, parse_suit(record["trump_suit"]), trump_seat, plays


def engine_pass(rounds: list[tuple[list[int], int, int, list[int]]]) -> None:
    for hands, trump_suit, trump_seat, plays in rounds:
        state = RoundState(hands, trump_suit, trump_seat)
        play = state.play
        for card in plays:
            if state.awaiting_bavan_decision:
                state.decide_bavan(BavanDecision.GO)
            play(card)


def replay_pass(rounds: list[tuple[dict, int]]) -> None:
    for record, trump_seat in rounds:
        replay_record(record, trump_seat)


def rate(run, rounds, repeats: int = 5) -> float:
    """Best rounds per second of ``repeats`` passes of ``run`` over ``rounds``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run(rounds)
        best = min(best, time.perf_counter() - start)
    return len(rounds) / best


def main() -> None:
    per_length = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    found = records_by_length(per_length)
    print(f"Python {sys.version.split()[0]}, {per_length} bot rounds per length, best of 5")
    print(f"{'tricks':>6} {'engine rounds/s':>16} {'replay rounds/s':>16} {'replay us/card':>15}")
    for length in LENGTHS:
        rounds = found[length]
        engine = rate(engine_pass, [as_ints(r, seat) for r, seat in rounds])
        replay = rate(replay_pass, rounds)
        print(f"{length:>6} {engine:>16,.0f} {replay:>16,.0f} {1e6 / replay / (4 * length):>15.2f}")
    typical = [pair for pairs in found.values() for pair in pairs]
    engine = rate(engine_pass, [as_ints(r, seat) for r, seat in typical])
    replay = rate(replay_pass, typical)
    print(f"{'all':>6} {engine:>16,.0f} {replay:>16,.0f}")


if __name__ == "__main__":
    main()

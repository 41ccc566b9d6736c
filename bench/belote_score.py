"""Deals scored per second by the Bazar Belote scorer.

Run from the repository root: ``python -m bench.belote_score``. Prints two rates: validating and
scoring (what an API request costs), and scoring alone.
"""

import random
import time

from belote.scoring import Contract, Deal, PerPair, score_deal

DEALS = 1_000
ROUNDS = 20


def random_deal_fields(rng: random.Random) -> dict:
    """Keyword arguments of a valid simple contract, in a suit or in all trumps."""
    in_all_trumps = rng.random() < 0.3
    deck = 258 if in_all_trumps else 162
    playing = rng.randint(0, deck)
    return {
        "contract": Contract.ALL_TRUMPS if in_all_trumps else Contract.SUIT,
        "suit": None if in_all_trumps else rng.choice("SHDC"),
        "number": rng.randint(8, 25),
        "kontra": rng.choice((0, 0, 0, 1, 2)),
        "tricks_whists": PerPair(playing, deck - playing),
        "constructions": PerPair(rng.choice((0, 20, 50)), rng.choice((0, 20))),
        "playing_took_tricks": True,
        "whisting_took_tricks": True,
    }


def deals_per_second(work, count: int) -> float:
    start = time.perf_counter()
    for _ in range(ROUNDS):
        work()
    return count * ROUNDS / (time.perf_counter() - start)


def main() -> None:
    rng = random.Random(2010)
    fields = [random_deal_fields(rng) for _ in range(DEALS)]
    deals = [Deal(**deal_fields) for deal_fields in fields]

    def validate_and_score() -> None:
        for deal_fields in fields:
            score_deal(Deal(**deal_fields))

    def score_only() -> None:
        for deal in deals:
            score_deal(deal)

    print(f"validate + score: {deals_per_second(validate_and_score, DEALS):,.0f} deals/s")
    print(f"score only:       {deals_per_second(score_only, DEALS):,.0f} deals/s")


if __name__ == "__main__":
    main()

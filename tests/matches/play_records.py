"""Full round records (the ``"play"`` field) for the API tests: legal bot rounds found by seed
with the final tricks a test asks for, and round bodies that carry a record."""

from __future__ import annotations

from functools import cache

from matches.kort.bots import play_round
from matches.kort.replay import replay_record
from matches.kort.rules import BavanDecision

SEARCH_LIMIT = 20_000


@cache
def bot_record(trump_seat: int, tricks_a: int, tricks_b: int) -> dict:
    """The first seeded bot round (random play, ``go`` at a 7:0) that seat ``trump_seat``
    called and that ended ``tricks_a``:``tricks_b``. The bots and the engine are checked by
    their own tests; here they only supply legal records."""
    records = (play_round(seed, trump_seat, BavanDecision.GO) for seed in range(SEARCH_LIMIT))
    wanted = (tricks_a, tricks_b)
    found = next((r for r in records if replay_record(r, trump_seat).tricks == wanted), None)
    assert found is not None, f"no bot round called by seat {trump_seat} ends {wanted}"
    return found


def played(trump_seat: int, record: object, **extra) -> dict:
    """A round report with the full record and no summary tricks. ``record`` is sent as given:
    a record's JSON form, or any other value for a refusal."""
    return {"trump_seat": trump_seat, "play": record, **extra}

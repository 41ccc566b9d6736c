"""Round reports that carry the full record of the round, the ``"play"`` field (API.md "Matches").

The server replays the record (KORT_RULES §1, §3) and derives the final tricks itself; the
summary fields of the report, when given, must agree with it. The Bavan decision comes from the
report (``bavan``, or resolved from ``bavan_votes``, §4) or from the record itself: a record that
goes on past 7:0 went for Bavan. Pure: nothing here touches the database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from matches.kort.cards import card_names
from matches.kort.replay import Record, ReplayResult, replay_record
from matches.kort.rules import BavanDecision, InvalidRoundError, Team

PLAY_REQUIRED = "this match requires the full record of every round (play)"
"""The refusal of a summary-only round on a match with ``require_play``."""


def canonical_play(play: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The record ``play`` in its canonical wire form (``Record.to_wire()``), None without one.

    Canonical means every field present (``declarations`` defaults to ``[]``), so a record is
    stored and compared for resends in one shape.

    Raises:
        InvalidRecordError: the record is not shaped like one (field ``play`` or ``play.<part>``).
    """
    return None if play is None else Record.from_wire(play).to_wire()


@dataclass(frozen=True)
class ReplayedReport:
    """A report whose record replayed: the final ``tricks`` by team and the engine's result."""

    tricks: dict[Team, int]
    replay: ReplayResult

    def decision(self, decision: BavanDecision | None, field: str) -> BavanDecision | None:
        """The round's Bavan decision: ``decision`` (given or voted) checked against the record,
        or the one the record implies (play past 7:0 is a ``go``, KORT_RULES §3, §4).

        ``field`` names where ``decision`` came from (``bavan`` or ``bavan_votes``). A record
        that stops at 7:0 with no decision returns None; the rules then refuse the round for
        want of a decision (§4).

        Raises:
            InvalidRoundError: ``go`` on a record that stops at 7:0, ``stop`` on one that goes
                on past 7:0, or any decision on a record with no 7:0 (field ``field``).
        """
        a, b = self.replay.tricks
        if self.replay.vote_pending:
            if decision is BavanDecision.GO:
                raise InvalidRoundError(
                    field,
                    f"the decision is go, but the record stops at {a}:{b} (A:B); a Bavan record "
                    "goes on until 13:0 or the opponents' first trick (KORT_RULES §3)",
                )
            return decision
        if self.replay.bavan is BavanDecision.GO:
            if decision is BavanDecision.STOP:
                raise InvalidRoundError(
                    field,
                    f"the decision is stop, but the record goes on after 7:0 to {a}:{b} (A:B), "
                    "which is going for Bavan (KORT_RULES §3, §4)",
                )
            return BavanDecision.GO
        if decision is not None:
            raise InvalidRoundError(
                field,
                f"the decision is {decision}, but the record ends at {a}:{b} (A:B) with no 7:0; "
                "a Bavan decision is taken only at 7:0 (KORT_RULES §4)",
            )
        return None


def replay_report(
    play: Mapping[str, Any], trump_seat: int, tricks: Mapping[Team, int] | None
) -> ReplayedReport:
    """Replay ``play`` with ``trump_seat`` as caller and check the reported ``tricks`` (None:
    not reported) against it.

    The record is replayed with no decision, so the tricks it shows are the record's own; the
    decision is checked afterwards by :meth:`ReplayedReport.decision`.

    Raises:
        InvalidRecordError: an illegal or malformed record (field ``play`` or ``play.<part>``;
            the message names the trick, seat, card and rule).
        InvalidRoundError: the reported ``tricks`` differ from the record's (field ``tricks``).
    """
    replay = replay_record(play, trump_seat)
    a, b = replay.tricks
    replayed = {Team.A: a, Team.B: b}
    if tricks is not None and dict(tricks) != replayed:
        raise InvalidRoundError(
            "tricks",
            f"the record gives {a}:{b} (A:B) but the report says "
            f"{tricks[Team.A]}:{tricks[Team.B]} (KORT_RULES §1)",
        )
    return ReplayedReport(replayed, replay)


def hands_at_vote(play: Mapping[str, Any] | None, trump_seat: int) -> dict[int, list[str]] | None:
    """Each seat's unplayed cards (wire names) where the record stops, the 7:0 of a vote
    opened with a record; None for a round without one (KORT_RULES §4: the 7:0 team's hands are
    shown during the vote)."""
    if play is None:
        return None
    hands = replay_record(play, trump_seat).hands_left
    return {seat: card_names(mask) for seat, mask in enumerate(hands)}


def check_continues(opening: Mapping[str, Any] | None, complete: Mapping[str, Any]) -> None:
    """Check that the ``complete`` record of a Bavan continues the ``opening`` record its vote
    was opened with: the same deal and trump, the same tricks and declarations so far.

    Raises:
        InvalidRoundError: (field ``play``) the records differ where they overlap.
    """
    if opening is None:
        return
    overlap = len(opening["tricks"])
    same = (
        complete["trump_suit"] == opening["trump_suit"]
        and complete["hands"] == opening["hands"]
        and complete["tricks"][:overlap] == opening["tricks"]
        and [d for d in complete["declarations"] if d["before_trick"] <= overlap]
        == opening["declarations"]
    )
    if not same:
        raise InvalidRoundError(
            "play",
            f"the complete record must continue the record of the first {overlap} tricks the "
            "vote was opened with: the same deal, trump, tricks and declarations (KORT_RULES §3)",
        )

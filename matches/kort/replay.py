"""Replay the full record of a round (the ``"play"`` field of a round report) and check it.

The wire form (API.md, KORT_RULES §1, §3)::

    {"trump_suit": "H",
     "hands": [[13 cards of seat 0], [seat 1], [seat 2], [seat 3]],
     "tricks": [["AH", "2H", "KH", "5H"], ...],
     "declarations": [{"seat": 0, "kind": "sar" | "trop", "before_trick": 4}]}

Each trick lists its cards in play order from its leader: the trump caller leads trick 1, each
trick's taker the next. The record must stop exactly where the rules stop play, except that it
may stop at 7:0 with no decision given: the Bavan vote is then pending. A record that goes on past
7:0 went for Bavan. Declarations may be listed in any order; they are applied by ``before_trick``
and, before the same trick, in the order listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.errors import RuleError
from matches.kort.cards import (
    CARD_BY_NAME,
    InvalidCardError,
    InvalidSuitError,
    RepeatedCardError,
    not_a_card,
    parse_cards,
    parse_suit,
)
from matches.kort.engine import (
    BAVAN_DECISIONS,
    DECLARATION_KINDS,
    Declaration,
    DeclarationKind,
    IllegalPlayError,
    InvalidDealError,
    RoundState,
)
from matches.kort.rules import TRICKS_IN_ROUND, TRICKS_TO_WIN, BavanDecision, RoundResult

_FIELDS = frozenset({"trump_suit", "hands", "tricks", "declarations"})
_DECLARATION_FIELDS = frozenset({"seat", "kind", "before_trick"})
_NOT_ROWS = {
    "hands": "hands must be a list of 4 lists of cards, one per seat",
    "tricks": "tricks must be a list of lists of 4 cards, one per trick",
}
_ROW_TYPES = (list, tuple)


class InvalidRecordError(RuleError):
    """A round record the rules refuse; ``field`` is the path of the bad part.

    ``field`` is ``"play"`` or a path inside it (``"play.hands"``, ``"play.tricks"``,
    ``"play.trump_suit"``, ``"play.declarations"``), or ``"trump_seat"`` / ``"bavan"`` for the
    arguments of :func:`replay_record`. The message names the trick, seat, card and rule.
    """


@dataclass(frozen=True, slots=True)
class Record:
    """The record of one round in wire notation (see the module docstring for the shape)."""

    trump_suit: str
    hands: tuple[tuple[str, ...], ...]
    tricks: tuple[tuple[str, ...], ...]
    declarations: tuple[Declaration, ...] = ()

    @classmethod
    def from_wire(cls, play: Mapping[str, Any]) -> Record:
        """Build a record from its JSON form, checking only its shape (cards are not parsed).

        Raises:
            InvalidRecordError: not an object with ``trump_suit``, ``hands`` and ``tricks`` (and
                optional ``declarations``), or a part of the wrong type.
        """
        trump_suit, hands, tricks, declarations = _parts(play)
        return cls(
            trump_suit=trump_suit,
            hands=_rows(hands, "hands"),
            tricks=_rows(tricks, "tricks"),
            declarations=declarations,
        )

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON form of the record."""
        return {
            "trump_suit": self.trump_suit,
            "hands": [list(hand) for hand in self.hands],
            "tricks": [list(trick) for trick in self.tricks],
            "declarations": [
                {"seat": d.seat, "kind": str(d.kind), "before_trick": d.before_trick}
                for d in self.declarations
            ],
        }


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """What a replayed record establishes.

    ``tricks`` is ``(team A, team B)``; ``bavan`` the decision at 7:0 (given or implied by play
    past 7:0), or None; ``vote_pending`` is True when the record stops at 7:0 with no decision;
    ``trick_winners`` the seat that took each trick; ``hands_left`` the unplayed cards of each
    seat as masks (the hands shown at a pending 7:0, KORT_RULES §4); ``outcome`` what the round
    counts for (KORT_RULES §2), None while the vote is pending.
    """

    tricks: tuple[int, int]
    bavan: BavanDecision | None
    vote_pending: bool
    trick_winners: tuple[int, ...]
    declarations: tuple[Declaration, ...]
    hands_left: tuple[int, ...]
    outcome: RoundResult | None


def replay_record(
    record: Mapping[str, Any] | Record,
    trump_seat: int,
    bavan: BavanDecision | str | None = None,
) -> ReplayResult:
    """Replay ``record`` with ``trump_seat`` (0..3) as caller and check every card (§1, §3).

    ``bavan`` is the decision at 7:0 known from elsewhere (the report or its votes), or None.

    Raises:
        InvalidRecordError: a malformed record, a deal that is not 4 hands of 13 distinct cards,
            an unknown suit, a card not held or not legal, a trick after the end, a record that
            stops before the end (other than a pending 7:0), a ``stop`` contradicted by play
            past 7:0, a decision with no 7:0, or a refused declaration.
    """
    trump_suit, hands, tricks, declarations = _parts(record)
    state = _initial_state(trump_suit, hands, trump_seat)
    by_trick = _by_trick(declarations, len(tricks))
    decision = _decision(bavan)
    for number, trick in enumerate(tricks, start=1):
        if number > TRICKS_TO_WIN:  # no round ends or pauses before its 7th trick
            _start_trick(state, number, decision)
        if number in by_trick:
            for declaration in by_trick[number]:
                _declare(state, declaration)
        _play_trick(state, number, trick)
    return _result(state, decision)


def _parts(record: Mapping[str, Any] | Record) -> tuple[Any, Any, Any, tuple[Declaration, ...]]:
    """``(trump_suit, hands, tricks, declarations)`` of a record or of its JSON form.

    Checks the fields and that hands and tricks are lists; their rows are checked as they are
    read.
    """
    if isinstance(record, Record):
        return record.trump_suit, record.hands, record.tricks, record.declarations
    if not isinstance(record, Mapping):
        raise InvalidRecordError("play", "the record must be an object")
    unknown = set(record) - _FIELDS
    missing = _FIELDS - {"declarations"} - set(record)
    if unknown or missing:
        field = sorted(unknown or missing)[0]
        problem = "is not a field of a record" if unknown else "is required"
        raise InvalidRecordError(f"play.{field}", f"{field} {problem}")
    for field in ("hands", "tricks"):
        if not isinstance(record[field], list | tuple):
            raise InvalidRecordError(f"play.{field}", _NOT_ROWS[field])
    declarations = _declarations(record.get("declarations", ()))
    return record["trump_suit"], record["hands"], record["tricks"], declarations


def _rows(value: Any, field: str) -> tuple[tuple[str, ...], ...]:
    if not all(type(row) in _ROW_TYPES for row in value):
        raise InvalidRecordError(f"play.{field}", _NOT_ROWS[field])
    return tuple(map(tuple, value))


def _declarations(value: Any) -> tuple[Declaration, ...]:
    if not isinstance(value, list | tuple):
        raise InvalidRecordError("play.declarations", "declarations must be a list")
    return tuple(_declaration(index, item) for index, item in enumerate(value))


def _declaration(index: int, item: Any) -> Declaration:
    if not _is_declaration(item):
        raise InvalidRecordError(
            "play.declarations",
            f"declaration {index + 1}: {item!r} is not "
            '{"seat": 0..3, "kind": "sar" | "trop", "before_trick": n} (KORT_RULES §9)',
        )
    return Declaration(item["seat"], DeclarationKind(item["kind"]), item["before_trick"])


def _is_declaration(item: Any) -> bool:
    return (
        isinstance(item, Mapping)
        and set(item) == _DECLARATION_FIELDS
        and isinstance(item["kind"], str)
        and item["kind"] in DECLARATION_KINDS
        and type(item["seat"]) is int
        and item["seat"] in range(4)
        and type(item["before_trick"]) is int
    )


def _hand_mask(seat: int, names: Any) -> int:
    """The mask of one dealt hand; the number of cards is checked with the whole deal."""
    if type(names) not in _ROW_TYPES:
        raise InvalidRecordError("play.hands", _NOT_ROWS["hands"])
    try:
        return parse_cards(names)
    except RepeatedCardError as error:
        raise InvalidRecordError("play.hands", f"seat {seat}: {error}") from None
    except InvalidCardError as error:
        problem = f"seat {seat}, card {error.position}: {error}"
        raise InvalidRecordError("play.hands", problem) from None


def _card(name: Any) -> int | None:
    """The card of a wire name, or None for anything else."""
    return CARD_BY_NAME.get(name) if isinstance(name, str) else None


def _initial_state(trump_suit: Any, hands: Any, trump_seat: int) -> RoundState:
    try:
        suit = parse_suit(trump_suit)
    except InvalidSuitError as error:
        raise InvalidRecordError("play.trump_suit", str(error)) from None
    if type(trump_seat) is not int or trump_seat not in range(4):
        raise InvalidRecordError("trump_seat", f"{trump_seat!r} is not a seat (0..3)")
    masks = [_hand_mask(seat, names) for seat, names in enumerate(hands)]
    try:
        return RoundState(masks, suit, trump_seat)
    except InvalidDealError as error:
        raise InvalidRecordError("play.hands", str(error)) from None


def _by_trick(
    declarations: tuple[Declaration, ...], trick_count: int
) -> dict[int, list[Declaration]]:
    by_trick: dict[int, list[Declaration]] = {}
    for index, declaration in enumerate(declarations, start=1):
        if declaration.before_trick not in range(1, trick_count + 1):
            raise InvalidRecordError(
                "play.declarations",
                f"declaration {index}: before trick {declaration.before_trick}, but the record "
                f"has tricks 1..{trick_count}; a declaration comes before a played trick",
            )
        by_trick.setdefault(declaration.before_trick, []).append(declaration)
    return by_trick


def _decision(bavan: BavanDecision | str | None) -> BavanDecision | None:
    if bavan is None:
        return None
    if isinstance(bavan, str) and bavan in BAVAN_DECISIONS:
        return BavanDecision(bavan)
    raise InvalidRecordError("bavan", f"{bavan!r} is not a Bavan decision; use go or stop")


def _start_trick(state: RoundState, number: int, decision: BavanDecision | None) -> None:
    """Before trick ``number``: refuse it after the end, or go for Bavan past a 7:0 (§1, §3)."""
    if state.awaiting_bavan_decision:
        if decision == BavanDecision.STOP:
            raise InvalidRecordError(
                "play.tricks",
                f"trick {number}: the record goes on after 7:0, but the decision is stop "
                "(KORT_RULES §4)",
            )
        state.decide_bavan(BavanDecision.GO)
    elif state.is_over:
        a, b = state.tricks_won
        raise InvalidRecordError(
            "play.tricks",
            f"trick {number}: the round ended at {a}:{b} (A:B) after trick {number - 1}; "
            "no further trick is played (KORT_RULES §1, §3)",
        )


def _declare(state: RoundState, declaration: Declaration) -> None:
    try:
        state.declare(declaration.seat, declaration.kind)
    except IllegalPlayError as error:
        raise InvalidRecordError("play.declarations", str(error)) from None


def _play_trick(state: RoundState, number: int, trick: Any) -> None:
    if type(trick) not in _ROW_TYPES:
        raise InvalidRecordError("play.tricks", _NOT_ROWS["tricks"])
    if len(trick) != 4:
        raise InvalidRecordError(
            "play.tricks",
            f"trick {number} has {len(trick)} cards; a trick has 4, in play order from its "
            "leader (KORT_RULES §1)",
        )
    play = state.play
    try:
        for name in trick:
            play(CARD_BY_NAME[name])
    except (KeyError, TypeError):
        name = next(n for n in trick if _card(n) is None)
        where = f"trick {number}, seat {state.to_play}"
        raise InvalidRecordError("play.tricks", f"{where}: {not_a_card(name)}") from None
    except IllegalPlayError as error:
        raise InvalidRecordError("play.tricks", str(error)) from None


def _result(state: RoundState, decision: BavanDecision | None) -> ReplayResult:
    """Check that the record stops where the rules stop play, and collect what it shows."""
    if state.awaiting_bavan_decision and decision is not None:
        state.decide_bavan(decision)
    elif decision is not None and state.bavan is None:
        a, b = state.tricks_won
        raise InvalidRecordError(
            "bavan",
            f"a Bavan decision ({decision}) was given, but the round ended at {a}:{b} (A:B) "
            "with no 7:0 (KORT_RULES §4)",
        )
    if not state.is_over and not state.awaiting_bavan_decision:
        raise InvalidRecordError("play.tricks", _stopped_early(state))
    return ReplayResult(
        tricks=state.tricks_won,
        bavan=state.bavan,
        vote_pending=state.awaiting_bavan_decision,
        trick_winners=state.trick_winners,
        declarations=state.declarations,
        hands_left=state.hands,
        outcome=state.outcome(),
    )


def _stopped_early(state: RoundState) -> str:
    a, b = state.tricks_won
    played = len(state.trick_winners)
    if state.bavan == BavanDecision.GO:
        rule = (
            f"a Bavan goes on until {TRICKS_IN_ROUND}:0 or the opponents' first trick "
            "(KORT_RULES §3)"
        )
    else:
        rule = "play goes on until a team has 7 tricks (KORT_RULES §1)"
    return f"the record stops after trick {played} at {a}:{b} (A:B), before the end: {rule}"

"""Bazar Belote deal scoring (BELOTE_SCORING §1-§6), using the standard library only.

A :class:`Deal` holds what the score sheet needs about one deal: the contract, the number named in
it, Kontra, and the whists each pair earned in tricks and constructions. :func:`score_deal` turns
it into a :class:`DealScore`: whether the contract was played, each pair's points, the bait mark and
the breakdown (C, PC, Pp, Pv, Vp, Vv). ``dataclasses.asdict`` of a ``DealScore`` has the shape of
the ``POST /api/v1/belote/score/`` response (API.md, "Bazar Belote").

Decisions where the spec is silent
----------------------------------
* **Deck value S of a Kapo from a hand.** With a suit letter S = 162, with ``"AT"`` S = 258, as for
  the other contracts in that suit or in all trumps.
* **Base cost C of a Kapo from a hand.** 50 whether it is in a suit or in all trumps: the source's
  table reads "Kapo from a hand (all) 50", against "Kapo (rest) 25" for the other Kapos.
* **Suit outside the suit contracts.** ``suit`` must be ``None`` for ``all_trumps`` and
  ``kapo_all_trumps``; a suit given there is rejected rather than ignored, so a client that sends a
  contradictory deal hears about it.
* **The number.** N (simple contracts) and K (Kapos) are integers from 1 to 100: a pair may
  declare more than it can reach, and then the contract is simply not played; 100 is far above
  any real declaration and keeps nonsense out of the score sheets. Construction whists per pair
  are at most 1000 for the same reason.
* **"div" is floor division**, and with it the cap of §4 (Pv + Pp ≤ C + (VCp + VCv) / 10) holds
  with equality for every valid deal, played or not, so it needs no separate clamp: the trick
  whists add up to S, C is S div 10 for both simple contracts, and constructions are multiples of
  10, so Pv + Pp = (S + VCp + VCv) div 10 = C + (VCp + VCv) / 10. In an all-trumps deal where the
  playing pair earned 0 to 3 whists, round10(Vv) exceeds S + VCp + VCv by 2, so Pp = -1: the
  rounding point "comes off Pp" as the source says. Pp then only appears summed with Pv (the
  contract is not played), so no pair's result is ever negative.
* **Kapo points** follow §4 and §5 literally: a made Kapo gives the playing pair PC + Pp, that is
  (C + K) + (C + VCp / 10), doubled PC under Kontra.
* **Who took tricks.** A pair that took no trick has 0 trick whists, so the other pair has all S
  of them (and both pairs cannot be without tricks). A pair with 0 trick whists may still have
  taken a trick worth nothing, which breaks a Kapo (§3).
* **Trick whists are not checked against the card values** (1 whist, for instance, cannot be made
  from cards); :mod:`belote.scoring.cards` counts them from the cards when those are known.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

from domain.errors import RuleError

T = TypeVar("T")

SUITS = ("S", "H", "D", "C")
ALL_TRUMPS = "AT"
SUIT_DECK_WHISTS = 162
ALL_TRUMPS_DECK_WHISTS = 258
MAX_KONTRA = 2
MAX_NUMBER = 100
MAX_CONSTRUCTION_WHISTS = 1000


class Contract(StrEnum):
    """The five contracts of the wire format (BELOTE_SCORING §1)."""

    SUIT = "suit"
    ALL_TRUMPS = "all_trumps"
    KAPO = "kapo"
    KAPO_ALL_TRUMPS = "kapo_all_trumps"
    KAPO_FROM_HAND = "kapo_from_hand"

    @property
    def is_kapo(self) -> bool:
        """Whether the contract is one of the three Kapos (BELOTE_SCORING §1)."""
        return self in _KAPOS

    @property
    def in_all_trumps(self) -> bool:
        """Whether the contract is always played in all trumps, with no suit named (§1)."""
        return self in _IN_ALL_TRUMPS


_KAPOS = frozenset({Contract.KAPO, Contract.KAPO_ALL_TRUMPS, Contract.KAPO_FROM_HAND})
_IN_ALL_TRUMPS = frozenset({Contract.ALL_TRUMPS, Contract.KAPO_ALL_TRUMPS})

# BELOTE_SCORING §2.
BASE_COST = {
    Contract.SUIT: 16,
    Contract.ALL_TRUMPS: 25,
    Contract.KAPO: 25,
    Contract.KAPO_ALL_TRUMPS: 34,
    Contract.KAPO_FROM_HAND: 50,
}


class Pair(StrEnum):
    """The pair that declared the contract, and the pair that defends it."""

    PLAYING = "playing"
    WHISTING = "whisting"


@dataclass(frozen=True, slots=True)
class PerPair(Generic[T]):
    """One value for each pair, shaped like the wire's ``{"playing": ..., "whisting": ...}``."""

    playing: T
    whisting: T

    def __getitem__(self, pair: Pair) -> T:
        return self.playing if pair is Pair.PLAYING else self.whisting


class InvalidBeloteDealError(RuleError):
    """A deal that breaks a rule of BELOTE_SCORING §1; ``field`` is the wire field concerned."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Deal:
    """One deal as reported on the score sheet (BELOTE_SCORING §1; API.md "Bazar Belote").

    Fields mirror the wire format. ``suit`` is a letter of ``SUITS`` for ``suit`` and ``kapo``, a
    letter or ``"AT"`` for ``kapo_from_hand``, and ``None`` otherwise. ``number`` is N for simple
    contracts and K for Kapos. ``kontra`` is 0 (none), 1 (Kontra) or 2 (Rekontra). Whists are card
    points: ``tricks_whists`` per pair includes the last trick's 10 and adds up to S;
    ``constructions`` per pair includes Bella and is a multiple of 10.

    Raises:
        InvalidBeloteDealError: on construction, if any rule above is broken; ``field`` names the
            wire field and the message names the rule.
    """

    contract: Contract
    suit: str | None
    number: int
    kontra: int = 0
    tricks_whists: PerPair[int]
    constructions: PerPair[int] = PerPair(0, 0)
    playing_took_tricks: bool
    whisting_took_tricks: bool

    def __post_init__(self) -> None:
        object.__setattr__(self, "contract", _parse_contract(self.contract))
        _check_suit(self.contract, self.suit)
        _check_int("number", "the number", self.number, minimum=1, maximum=MAX_NUMBER)
        _check_int("kontra", "kontra", self.kontra, minimum=0, maximum=MAX_KONTRA)
        _check_tricks_whists(self)
        _check_constructions(self.constructions)
        _check_took_tricks(self)

    @property
    def deck_whists(self) -> int:
        """S, the whists in the 32 cards plus the last trick: 162 in a suit, 258 in all trumps."""
        if self.contract.in_all_trumps or self.suit == ALL_TRUMPS:
            return ALL_TRUMPS_DECK_WHISTS
        return SUIT_DECK_WHISTS

    def took_tricks(self, pair: Pair) -> bool:
        return self.playing_took_tricks if pair is Pair.PLAYING else self.whisting_took_tricks


@dataclass(frozen=True, slots=True)
class Breakdown:
    """The quantities of BELOTE_SCORING §1-§4 behind a result, in points (C, PC, Pp, Pv) or
    whists (Vp, Vv, after the no-trick constructions transfer)."""

    C: int
    PC: int
    Pp: int
    Pv: int
    Vp: int
    Vv: int


@dataclass(frozen=True, slots=True)
class DealScore:
    """The result of a deal (BELOTE_SCORING §5): points to add to each pair's column, and the pair
    marked with a bait (BT), if any."""

    played: bool
    points: PerPair[int]
    bait: Pair | None
    breakdown: Breakdown


def round10(whists: int) -> int:
    """Round a non-negative number of whists to a multiple of 10, halves up: 14 → 10, 15 → 20
    (BELOTE_SCORING, terms)."""
    return (whists + 5) // 10 * 10


def score_deal(deal: Deal) -> DealScore:
    """Score one deal (BELOTE_SCORING §1-§5).

    Args:
        deal: a validated deal; every rule is checked when the ``Deal`` is built.

    Returns:
        Whether the contract was played, the points (≥ 0) each pair adds to its column, the pair
        marked with a bait, and the breakdown in points and whists.
    """
    constructions = _constructions_after_transfer(deal)
    vp = deal.tricks_whists.playing + constructions.playing
    vv = deal.tricks_whists.whisting + constructions.whisting
    base_cost = BASE_COST[deal.contract]
    contract_points = _contract_points(deal, base_cost)
    if deal.contract.is_kapo:
        played = not deal.whisting_took_tricks
        pp, pv = _kapo_whist_points(base_cost, constructions)
    else:
        played = vp >= deal.number * 10
        pp, pv = _simple_whist_points(vp, vv)
    points, bait = _result(played, deal.kontra, contract_points + pp, pv)
    return DealScore(
        played=played,
        points=points,
        bait=bait,
        breakdown=Breakdown(C=base_cost, PC=contract_points, Pp=pp, Pv=pv, Vp=vp, Vv=vv),
    )


def _constructions_after_transfer(deal: Deal) -> PerPair[int]:
    """Constructions whists per pair once a playing pair without tricks has lost its own to the
    whisting pair (BELOTE_SCORING §1)."""
    if deal.playing_took_tricks:
        return deal.constructions
    return PerPair(0, deal.constructions.playing + deal.constructions.whisting)


def _contract_points(deal: Deal, base_cost: int) -> int:
    """PC: N for a simple contract, C + K for a Kapo; doubled by Kontra, again by Rekontra (§2)."""
    undoubled = base_cost + deal.number if deal.contract.is_kapo else deal.number
    doubling: int = 2**deal.kontra  # kontra is 0..2, so a whole number
    return undoubled * doubling


def _simple_whist_points(vp: int, vv: int) -> tuple[int, int]:
    """(Pp, Pv) for a simple contract (BELOTE_SCORING §4). Floor division makes Pv + Pp exactly
    C + (VCp + VCv) / 10, the cap, with the rounding point taken off Pp (see the module notes)."""
    pv = round10(vv) // 10
    pp = (vp + vv - pv * 10) // 10
    return pp, pv


def _kapo_whist_points(base_cost: int, constructions: PerPair[int]) -> tuple[int, int]:
    """(Pp, Pv) for a Kapo, whose trick whists are already in C (BELOTE_SCORING §4)."""
    return base_cost + constructions.playing // 10, constructions.whisting // 10


def _result(
    played: bool, kontra: int, playing_earned: int, pv: int
) -> tuple[PerPair[int], Pair | None]:
    """Points per pair and the bait mark, from PC + Pp and Pv (BELOTE_SCORING §5)."""
    if not played:
        return PerPair(0, playing_earned + pv), Pair.PLAYING
    if kontra:
        return PerPair(playing_earned + pv, 0), Pair.WHISTING
    return PerPair(playing_earned, pv), None


def _parse_contract(contract: object) -> Contract:
    if isinstance(contract, str):
        try:
            return Contract(contract)
        except ValueError:
            pass
    known = ", ".join(c.value for c in Contract)
    raise InvalidBeloteDealError("contract", f"contract must be one of {known}; got {contract!r}")


def _check_suit(contract: Contract, suit: object) -> None:
    if contract.in_all_trumps:
        if suit is not None:
            raise InvalidBeloteDealError(
                "suit", f"suit must be absent for {contract}; got {suit!r}"
            )
        return
    allowed = (*SUITS, ALL_TRUMPS) if contract is Contract.KAPO_FROM_HAND else SUITS
    if suit not in allowed:
        given = "none" if suit is None else repr(suit)
        raise InvalidBeloteDealError(
            "suit", f"suit must be one of {', '.join(allowed)} for {contract}; got {given}"
        )


def _check_int(
    field: str, name: str, value: object, *, minimum: int, maximum: int | None = None
) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidBeloteDealError(field, f"{name} must be an integer; got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        bounds = f"at least {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise InvalidBeloteDealError(field, f"{name} must be {bounds}; got {value}")


def _check_tricks_whists(deal: Deal) -> None:
    for pair in Pair:
        _check_int("tricks_whists", f"{pair} trick whists", deal.tricks_whists[pair], minimum=0)
    total = deal.tricks_whists.playing + deal.tricks_whists.whisting
    if total != deal.deck_whists:
        raise InvalidBeloteDealError(
            "tricks_whists",
            f"trick whists must add up to {deal.deck_whists} for {_deck_name(deal)}; got {total}",
        )


def _deck_name(deal: Deal) -> str:
    return "a suit contract" if deal.deck_whists == SUIT_DECK_WHISTS else "an all-trumps contract"


def _check_constructions(constructions: PerPair[int]) -> None:
    for pair in Pair:
        whists = constructions[pair]
        _check_int(
            "constructions",
            f"{pair} construction whists",
            whists,
            minimum=0,
            maximum=MAX_CONSTRUCTION_WHISTS,
        )
        if whists % 10:
            raise InvalidBeloteDealError(
                "constructions",
                f"{pair} construction whists must be a multiple of 10; got {whists}",
            )


def _check_took_tricks(deal: Deal) -> None:
    for pair in Pair:
        field = f"{pair}_took_tricks"
        took = deal.took_tricks(pair)
        if not isinstance(took, bool):
            raise InvalidBeloteDealError(field, f"{field} must be true or false; got {took!r}")
        if not took and deal.tricks_whists[pair]:
            raise InvalidBeloteDealError(
                field,
                f"a pair that took no trick has 0 trick whists; "
                f"the {pair} pair has {deal.tricks_whists[pair]}",
            )

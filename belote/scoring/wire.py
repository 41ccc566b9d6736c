"""A deal read from its wire form (API.md "Bazar Belote"; BELOTE_SCORING §1, §7).

:func:`deal_from_wire` turns a request body whose fields already have their wire types (the API's
serializer checks the shapes) into the scorer's :class:`~.deals.Deal`, which checks the rules.

Decisions where the contract is silent
--------------------------------------
* **Took-tricks flags.** ``playing_took_tricks`` / ``whisting_took_tricks`` may be left out only
  for a pair with trick whists: such a pair took a trick, so the flag is true. For a pair with 0
  trick whists the flag is required, whatever the contract: a trick worth 0 whists still breaks a
  Kapo (§3) and still keeps the playing pair's constructions (§1), so guessing would be wrong.
* **Cards instead of whists.** ``tricks`` (the eight tricks with their cards and taker) replaces
  ``tricks_whists`` and both flags, which are then counted with the card values of §7; giving
  both forms is an error. The trump is ``suit``, or all trumps for ``all_trumps`` and
  ``kapo_all_trumps``. Constructions stay an input in both forms.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from belote.scoring.cards import Trick, count_tricks
from belote.scoring.deals import ALL_TRUMPS, Contract, Deal, InvalidBeloteDealError, Pair, PerPair

_COUNTED_FROM_TRICKS = ("tricks_whists", "playing_took_tricks", "whisting_took_tricks")
_NO_CONSTRUCTIONS = {"playing": 0, "whisting": 0}


class _Counted(TypedDict):
    """The :class:`~.deals.Deal` fields that the cards count when ``tricks`` are given."""

    tricks_whists: PerPair[int]
    playing_took_tricks: bool
    whisting_took_tricks: bool


def deal_from_wire(wire: Mapping[str, Any]) -> Deal:
    """The scorer's deal from a deal body, in whists form or in cards form (see the module notes).

    Args:
        wire: ``contract`` (a :class:`~.deals.Contract` value), ``suit`` (a suit letter, ``"AT"``
            or None; None if absent), ``number``, ``kontra`` (0 if absent), ``constructions``
            (``{"playing": int, "whisting": int}``, 0 and 0 if absent), and either
            ``tricks_whists`` (same shape) with the optional ``playing_took_tricks`` /
            ``whisting_took_tricks`` booleans, or ``tricks``: eight ``{"cards": [four cards],
            "taken_by": "playing" | "whisting"}``.

    Raises:
        InvalidBeloteDealError: a rule of BELOTE_SCORING §1 is broken, a required flag is missing,
            the tricks are not a deal, or both forms are given; ``field`` names the wire field.
    """
    return Deal(
        contract=Contract(wire["contract"]),
        suit=wire.get("suit"),
        number=wire["number"],
        kontra=wire.get("kontra", 0),
        constructions=PerPair(**wire.get("constructions", _NO_CONSTRUCTIONS)),
        **_counted(wire),
    )


def _took_tricks(wire: Mapping[str, Any], pair: Pair, trick_whists: int) -> bool:
    """The flag ``<pair>_took_tricks`` as given, or true for a pair with trick whists when it is
    left out; required for a pair with 0 trick whists (see the module notes)."""
    field = f"{pair}_took_tricks"
    if field in wire:
        given: bool = wire[field]  # a boolean on the wire; the Deal checks it
        return given
    if trick_whists != 0:
        return True
    raise InvalidBeloteDealError(
        field,
        f"{field} is required when the {pair} pair has 0 trick whists: "
        "a trick worth 0 whists still counts (BELOTE_SCORING §1, §3)",
    )


def _counted(wire: Mapping[str, Any]) -> _Counted:
    """Trick whists and took-tricks flags, as given or counted from the cards."""
    if "tricks" not in wire:
        return _given_tricks_whists(wire)
    given = [name for name in _COUNTED_FROM_TRICKS if name in wire]
    if given:
        raise InvalidBeloteDealError(
            "tricks", f"give either tricks or {', '.join(given)}, not both: tricks count them"
        )
    trump = ALL_TRUMPS if Contract(wire["contract"]).in_all_trumps else wire.get("suit")
    # count_tricks checks each taker, naming the trick of a bad one.
    tricks = [Trick(tuple(trick["cards"]), trick["taken_by"]) for trick in wire["tricks"]]
    count = count_tricks(trump, tricks)
    return {
        "tricks_whists": count.tricks_whists,
        "playing_took_tricks": count.playing_took_tricks,
        "whisting_took_tricks": count.whisting_took_tricks,
    }


def _given_tricks_whists(wire: Mapping[str, Any]) -> _Counted:
    if "tricks_whists" not in wire:
        raise InvalidBeloteDealError(
            "tricks_whists", "tricks_whists is required unless tricks are given"
        )
    whists = PerPair(**wire["tricks_whists"])
    return {
        "tricks_whists": whists,
        "playing_took_tricks": _took_tricks(wire, Pair.PLAYING, whists.playing),
        "whisting_took_tricks": _took_tricks(wire, Pair.WHISTING, whists.whisting),
    }

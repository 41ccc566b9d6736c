"""Writes of Bazar Belote score sheets (BELOTE_SCORING §5; API.md "Bazar Belote").

A deal is scored by the pure scorer and stored with its result in one transaction, under a lock
on its protocol row: concurrent adds to one sheet are numbered one after the other, and none is
lost.
"""

from __future__ import annotations

import dataclasses

from django.db import transaction
from rest_framework_api_key.models import APIKey

from belote.models import BeloteDeal, BelotePair, BeloteProtocol
from belote.scoring import Deal, score_deal
from domain.errors import Conflict, NotFound, RuleError
from players.ownership import check_owner


def protocol_create(*, service_key, pairs: dict[str, str]) -> BeloteProtocol:
    """Open a score sheet for two pairs; ``pairs`` maps ``pair_1`` and ``pair_2`` to display
    names."""
    return BeloteProtocol.objects.create(
        pair_1=pairs[BelotePair.PAIR_1], pair_2=pairs[BelotePair.PAIR_2], service_key=service_key
    )


def deal_add(
    *,
    protocol_id: int,
    playing_pair: str,
    deal: Deal,
    place: int | None = None,
    service_key: APIKey | None = None,
) -> tuple[BeloteDeal, bool]:
    """Score ``deal`` (BELOTE_SCORING §1-§5) and add it as the next deal of the sheet.

    ``playing_pair`` is the column (``pair_1`` or ``pair_2``) that declared the contract.
    ``place`` is the deal's place in the sheet when the caller sends it (API.md "Bazar Belote",
    with the rules of a round's ``number``): a stored place with the same deal returns the stored
    one. ``service_key`` is the caller's key: only the key that opened the sheet adds to it,
    checked with the sheet's row held (API.md "Ownership"). Returns ``(deal, created)``: the
    stored deal, numbered from 1, and False for a resend of a stored one (nothing written).

    Raises:
        NotFound: no such protocol.
        Forbidden: ``service_key`` did not open the sheet (nothing is written).
        Conflict: ``place`` names a stored deal with another body (field ``deal``).
        RuleError: ``place`` skips ahead (field ``deal``).
    """
    score = score_deal(deal)
    with transaction.atomic():
        try:
            protocol = BeloteProtocol.objects.select_for_update().get(pk=protocol_id)
        except BeloteProtocol.DoesNotExist:
            raise NotFound("no such protocol") from None
        check_owner(protocol.service_key_id, service_key, f"score sheet {protocol_id}")
        expected = protocol.deals.count() + 1
        if place is not None and place < expected:
            return _resent(protocol.deals.get(number=place), playing_pair, deal), False
        if place is not None and place > expected:
            raise RuleError("deal", f"the next deal is number {expected}; got {place}")
        stored = BeloteDeal.objects.create(
            protocol=protocol,
            number=expected,
            playing_pair=BelotePair(playing_pair),
            contract=deal.contract,
            suit=deal.suit,
            contract_number=deal.number,
            kontra=deal.kontra,
            trick_whists_playing=deal.tricks_whists.playing,
            trick_whists_whisting=deal.tricks_whists.whisting,
            constructions_playing=deal.constructions.playing,
            constructions_whisting=deal.constructions.whisting,
            playing_took_tricks=deal.playing_took_tricks,
            whisting_took_tricks=deal.whisting_took_tricks,
            played=score.played,
            points_playing=score.points.playing,
            points_whisting=score.points.whisting,
            bait=score.bait,
            breakdown=dataclasses.asdict(score.breakdown),
        )
        return stored, True


def _resent(stored: BeloteDeal, playing_pair: str, deal: Deal) -> BeloteDeal:
    """``stored``, when it is the deal resent (the same column and the same deal as scored).

    Raises:
        Conflict: the deal at that place is another (field ``deal``).
    """
    if (stored.playing_pair, stored.deal) != (playing_pair, deal):
        raise Conflict("deal", f"deal {stored.number} is already stored with another body")
    return stored

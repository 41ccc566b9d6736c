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
from domain.errors import NotFound
from players.ownership import check_owner


def protocol_create(*, service_key, pairs: dict[str, str]) -> BeloteProtocol:
    """Open a score sheet for two pairs; ``pairs`` maps ``pair_1`` and ``pair_2`` to display
    names."""
    return BeloteProtocol.objects.create(
        pair_1=pairs[BelotePair.PAIR_1], pair_2=pairs[BelotePair.PAIR_2], service_key=service_key
    )


def deal_add(
    *, protocol_id: int, playing_pair: str, deal: Deal, service_key: APIKey | None = None
) -> BeloteDeal:
    """Score ``deal`` (BELOTE_SCORING §1-§5) and add it as the next deal of the sheet.

    ``playing_pair`` is the column (``pair_1`` or ``pair_2``) that declared the contract.
    ``service_key`` is the caller's key: only the key that opened the sheet adds to it, checked
    with the sheet's row held (API.md "Ownership"). Returns the stored deal, numbered from 1.

    Raises:
        NotFound: no such protocol.
        Forbidden: ``service_key`` did not open the sheet (nothing is written).
    """
    score = score_deal(deal)
    with transaction.atomic():
        try:
            protocol = BeloteProtocol.objects.select_for_update().get(pk=protocol_id)
        except BeloteProtocol.DoesNotExist:
            raise NotFound("no such protocol") from None
        check_owner(protocol.service_key_id, service_key, f"score sheet {protocol_id}")
        return BeloteDeal.objects.create(
            protocol=protocol,
            number=protocol.deals.count() + 1,
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

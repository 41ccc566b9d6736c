"""Reads of Bazar Belote score sheets (BELOTE_SCORING §5; API.md "Bazar Belote")."""

from django.db.models import Case, Count, Expression, F, Prefetch, Q, QuerySet, Sum, When
from django.db.models.functions import Coalesce

from belote.models import BeloteDeal, BelotePair, BeloteProtocol
from belote.scoring import Pair


def protocols_with_totals() -> QuerySet[BeloteProtocol]:
    """Score sheets, newest first, annotated per column (``pair_1``, ``pair_2``) with the running
    total ``total_<pair>`` (points of every deal added to that column, §5), the number of bait
    marks ``baits_<pair>``, and ``deals_count``."""
    per_pair: dict[str, Expression] = {}
    for pair in BelotePair:
        per_pair[f"total_{pair}"] = _column_points(pair)
        per_pair[f"baits_{pair}"] = Count("deals", filter=_bait_marked_for(pair))
    return BeloteProtocol.objects.annotate(deals_count=Count("deals"), **per_pair).order_by(
        "-created_at", "-id"
    )


def protocol_with_deals() -> QuerySet[BeloteProtocol]:
    """As :func:`protocols_with_totals`, with the deals prefetched in their order."""
    return protocols_with_totals().prefetch_related(
        Prefetch("deals", queryset=BeloteDeal.objects.order_by("number"))
    )


def _column_points(pair: BelotePair) -> Coalesce:
    """Sum of a column: each deal's playing points if the column played it, else its whisting
    points."""
    points = Case(
        When(deals__playing_pair=pair, then=F("deals__points_playing")),
        default=F("deals__points_whisting"),
    )
    return Coalesce(Sum(points), 0)


def _bait_marked_for(pair: BelotePair) -> Q:
    """Deals whose bait mark (§5) went to the column ``pair``."""
    played = Q(deals__playing_pair=pair)
    return (played & Q(deals__bait=Pair.PLAYING.value)) | (
        ~played & Q(deals__bait=Pair.WHISTING.value)
    )

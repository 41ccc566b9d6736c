"""Wire shapes of the Bazar Belote scorer and score sheets (API.md "Bazar Belote").

Serializers check shapes and types only. A deal's body becomes the scorer's
:class:`~belote.scoring.Deal` through :func:`belote.scoring.deal_from_wire`, which applies the
wire's defaults (the took-tricks flags, cards instead of whists) and the rules of a deal
(BELOTE_SCORING §1); its ``InvalidBeloteDealError`` becomes a 400 naming the field
(``kort_site.api_errors``).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from belote.models import BeloteDeal, BelotePair, BeloteProtocol
from belote.scoring import ALL_TRUMPS, SUITS, Contract, Pair, deal_from_wire

CONSTRUCTIONS_HELP = (
    "Whists of the constructions each pair played, Bella included, a multiple of 10; 0 and 0 if "
    "left out. The product counts terz 20, quarta 50, quint 100, Bella 20, four jacks 200, four "
    "nines 150, four aces, tens, kings or queens 100 (BELOTE_SCORING §1, §7)."
)
TOOK_TRICKS_HELP = (
    "Whether the {pair} pair took any trick. May be left out when that pair has trick whists "
    "(then true); required when it has 0, since a trick worth 0 whists still counts (§1, §3)."
)


class PerPairSerializer(serializers.Serializer):
    """``{"playing": ..., "whisting": ...}`` whists or points."""

    playing = serializers.IntegerField()
    whisting = serializers.IntegerField()


class TrickSerializer(serializers.Serializer):
    cards = serializers.ListField(
        child=serializers.CharField(), help_text='four cards, rank then suit: "JH", "10C"'
    )
    taken_by = serializers.ChoiceField(choices=[p.value for p in Pair])


class DealSerializer(serializers.Serializer):
    """One deal (BELOTE_SCORING §1). ``validated_data`` is ``{"deal": Deal}``."""

    contract = serializers.ChoiceField(choices=[c.value for c in Contract])
    suit = serializers.ChoiceField(
        choices=[*SUITS, ALL_TRUMPS],
        required=False,
        allow_null=True,
        default=None,
        help_text='required for suit, kapo and kapo_from_hand ("AT" allowed there only)',
    )
    number = serializers.IntegerField(help_text="N for a simple contract, K for a Kapo; ≥ 1")
    kontra = serializers.IntegerField(default=0, help_text="0 none, 1 Kontra, 2 Rekontra")
    tricks_whists = PerPairSerializer(
        required=False,
        help_text="whists in each pair's tricks, last trick included; they add up to 162 in a "
        "suit, 258 in all trumps. Required unless tricks are given.",
    )
    constructions = PerPairSerializer(required=False, help_text=CONSTRUCTIONS_HELP)
    playing_took_tricks = serializers.BooleanField(
        required=False, help_text=TOOK_TRICKS_HELP.format(pair="playing")
    )
    whisting_took_tricks = serializers.BooleanField(
        required=False, help_text=TOOK_TRICKS_HELP.format(pair="whisting")
    )
    tricks = TrickSerializer(
        many=True,
        required=False,
        write_only=True,
        help_text="the eight tricks in play order, instead of tricks_whists and the flags; "
        "counted with the card values of BELOTE_SCORING §7",
    )

    def validate(self, attrs):
        return {"deal": deal_from_wire(attrs)}


class BreakdownSerializer(serializers.Serializer):
    """BELOTE_SCORING §1-§4: C, PC, Pp, Pv in points; Vp, Vv in whists."""

    C = serializers.IntegerField()
    PC = serializers.IntegerField()
    Pp = serializers.IntegerField()
    Pv = serializers.IntegerField()
    Vp = serializers.IntegerField()
    Vv = serializers.IntegerField()


class DealScoreSerializer(serializers.Serializer):
    """The result of a deal (BELOTE_SCORING §5), from a ``DealScore``."""

    played = serializers.BooleanField()
    points = PerPairSerializer()
    bait = serializers.ChoiceField(choices=[p.value for p in Pair], allow_null=True)
    breakdown = BreakdownSerializer()


class DealAddSerializer(DealSerializer):
    """A deal for a score sheet: the column that played the contract, and the deal as for
    ``/score/``, and optionally its place (``deal``). ``validated_data`` is
    ``{"playing_pair": ..., "place": int | None, "deal": Deal}``."""

    playing_pair = serializers.ChoiceField(choices=BelotePair.values)
    deal = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text="the deal's place in the sheet (1, 2, ...): a resend of a stored deal with the "
        "same place and body returns the sheet unchanged (200), another body is a 409, a "
        "place that skips ahead a 400; without it every POST is a new deal",
    )

    def validate(self, attrs):
        return {
            "playing_pair": attrs["playing_pair"],
            "place": attrs.get("deal"),
            **super().validate(attrs),
        }


class SheetPairsSerializer(serializers.Serializer):
    """Display names of the two columns."""

    pair_1 = serializers.CharField(min_length=1, max_length=60)
    pair_2 = serializers.CharField(min_length=1, max_length=60)

    def validate(self, attrs):
        if attrs["pair_1"] == attrs["pair_2"]:
            raise serializers.ValidationError({"pair_2": ["the two pairs need different names"]})
        return attrs


class ProtocolCreateSerializer(serializers.Serializer):
    pairs = SheetPairsSerializer()


class SheetPointsSerializer(serializers.Serializer):
    pair_1 = serializers.IntegerField()
    pair_2 = serializers.IntegerField()


class ProtocolDealSerializer(serializers.ModelSerializer):
    """A stored deal: the deal as scored, its result for the playing and whisting pair, and the
    same result in the sheet's columns."""

    deal = DealSerializer(help_text="the deal as scored (trick whists counted if cards were given)")
    score = DealScoreSerializer()
    points = serializers.SerializerMethodField()
    bait = serializers.SerializerMethodField()

    class Meta:
        model = BeloteDeal
        fields = ["number", "playing_pair", "deal", "score", "points", "bait"]

    @extend_schema_field(SheetPointsSerializer)
    def get_points(self, deal) -> dict[str, int]:
        return {deal.sheet_pair(pair): deal.score.points[pair] for pair in Pair}

    @extend_schema_field(serializers.ChoiceField(choices=BelotePair.values, allow_null=True))
    def get_bait(self, deal) -> str | None:
        """The column marked with a bait (BT), if any."""
        return deal.sheet_pair(deal.score.bait) if deal.score.bait else None


class ProtocolSummarySerializer(serializers.ModelSerializer):
    """A score sheet with its running totals and bait counts per column; read from
    ``belote.selectors.protocols_with_totals``."""

    pairs = serializers.SerializerMethodField()
    totals = serializers.SerializerMethodField()
    baits = serializers.SerializerMethodField()
    deals_count = serializers.IntegerField()

    class Meta:
        model = BeloteProtocol
        fields = ["id", "pairs", "totals", "baits", "deals_count", "created_at"]

    @extend_schema_field(SheetPairsSerializer)
    def get_pairs(self, protocol) -> dict[str, str]:
        return {pair: protocol.pair_name(pair) for pair in BelotePair}

    @extend_schema_field(SheetPointsSerializer)
    def get_totals(self, protocol) -> dict[str, int]:
        return _per_column(protocol, "total")

    @extend_schema_field(SheetPointsSerializer)
    def get_baits(self, protocol) -> dict[str, int]:
        return _per_column(protocol, "baits")


def _per_column(protocol: BeloteProtocol, annotation: str) -> dict[str, int]:
    """``{"pair_1": ..., "pair_2": ...}`` from the selector's ``<annotation>_<pair>`` values."""
    return {pair: getattr(protocol, f"{annotation}_{pair}") for pair in BelotePair}


class ProtocolSerializer(ProtocolSummarySerializer):
    """A score sheet with its deals in order."""

    deals = ProtocolDealSerializer(many=True, read_only=True)

    class Meta(ProtocolSummarySerializer.Meta):
        fields = [*ProtocolSummarySerializer.Meta.fields, "deals"]

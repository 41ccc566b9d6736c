"""Bazar Belote endpoints (API.md "Bazar Belote"): a stateless scorer, and score sheets
("protocols") whose deals are scored and summed per pair. Scoring and reads are public; opening a
sheet and adding deals need a service key (``Authorization: Api-Key <key>``)."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from belote import selectors, services
from belote.scoring import score_deal
from belote.serializers import (
    DealAddSerializer,
    DealScoreSerializer,
    DealSerializer,
    ProtocolCreateSerializer,
    ProtocolSerializer,
    ProtocolSummarySerializer,
)
from domain.ids import ID_PATTERN
from players.auth import IsServiceKey


class BeloteScoreView(APIView):
    """Score one deal (BELOTE_SCORING §1-§5); nothing is stored and no credentials are
    needed.

    Give either ``tricks_whists`` (with the took-tricks flags where a pair has 0 trick whists) or
    the eight ``tricks`` with their cards, counted with the card values of §7. Constructions are
    always given as whists per pair."""

    permission_classes = [AllowAny]

    @extend_schema(request=DealSerializer, responses={200: DealScoreSerializer})
    def post(self, request):
        given = DealSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        return Response(DealScoreSerializer(score_deal(given.validated_data["deal"])).data)


class BeloteProtocolViewSet(
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.ListModelMixin,
    viewsets.GenericViewSet,
):
    """Score sheets: open one and add deals (service key); read them (public). A sheet shows its
    deals in order with each one's result, and per pair the running total and bait marks."""

    lookup_value_regex = ID_PATTERN

    def get_queryset(self):
        if self.action == "list":
            return selectors.protocols_with_totals()
        return selectors.protocol_with_deals()

    def get_serializer_class(self):
        return ProtocolSummarySerializer if self.action == "list" else ProtocolSerializer

    def get_permissions(self):
        if self.action in ("create", "deals"):
            return [IsServiceKey()]
        return [AllowAny()]

    @extend_schema(request=ProtocolCreateSerializer, responses={201: ProtocolSerializer})
    def create(self, request):
        given = ProtocolCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        protocol = services.protocol_create(
            service_key=request.auth, pairs=given.validated_data["pairs"]
        )
        return self._sheet(protocol.pk, status.HTTP_201_CREATED)

    @extend_schema(
        request=DealAddSerializer,
        responses={
            200: OpenApiResponse(ProtocolSerializer, "a resend of the stored deal at `deal`"),
            201: ProtocolSerializer,
            409: OpenApiResponse(description="`deal` names a stored deal with another body"),
            403: OpenApiResponse(
                description="not the service key that opened the sheet (API.md: Ownership), "
                "or not a service key"
            ),
        },
    )
    @action(detail=True, methods=["post"])
    def deals(self, request, pk=None):
        """Score a deal and add it to the sheet as its next deal (or, with ``deal``, at that
        place); answers with the whole sheet."""
        given = DealAddSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        _, created = services.deal_add(
            protocol_id=int(pk), service_key=request.auth, **given.validated_data
        )
        return self._sheet(int(pk), status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    def _sheet(self, protocol_id: int, status_code: int) -> Response:
        protocol = selectors.protocol_with_deals().get(pk=protocol_id)
        return Response(ProtocolSerializer(protocol).data, status=status_code)

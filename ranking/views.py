"""Player and leaderboard endpoints (API.md "Players", "Leaderboard")."""

from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import filters, generics, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from domain.ids import ID_PATTERN
from players import services
from players.auth import IsServiceKey
from players.models import Player
from ranking import selectors
from ranking.serializers import LeaderboardRowSerializer, PlayerSerializer, TokenSerializer


class PlayerViewSet(
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.ListModelMixin,
    viewsets.GenericViewSet,
):
    """Players: create and mint tokens with a service key; read publicly."""

    queryset = Player.objects.order_by("id")
    serializer_class = PlayerSerializer
    filter_backends = [filters.SearchFilter]
    search_fields = ["username", "display_name"]
    lookup_value_regex = ID_PATTERN

    def get_permissions(self):
        if self.action in ("create", "token"):
            return [IsServiceKey()]
        return [AllowAny()]

    def perform_create(self, serializer):
        serializer.instance = services.player_create(**serializer.validated_data)

    @extend_schema(
        request=None,
        responses={
            201: TokenSerializer,
            400: OpenApiResponse(description="the player is a bot: bots get no token"),
        },
    )
    @action(detail=True, methods=["post"])
    def token(self, request, pk=None):
        """Mint (or return) the player's token for ``Authorization: Token <key>``.

        Bots get no token: they cannot log in (a 400)."""
        token = services.player_token(self.get_object())
        return Response({"token": token}, status=status.HTTP_201_CREATED)


class LeaderboardPagination(LimitOffsetPagination):
    """``limit`` and ``offset`` as DRF reads them, except that a value that is not a
    non-negative integer is a 400 instead of being ignored (API.md "Leaderboard"): a larger
    ``limit`` than ``max_limit`` is clamped to it, and 0 (or none) gives ``default_limit``."""

    default_limit = 100
    max_limit = 500

    def get_limit(self, request):
        self._check_count(request, self.limit_query_param)
        return super().get_limit(request)

    def get_offset(self, request):
        self._check_count(request, self.offset_query_param)
        return super().get_offset(request)

    def _check_count(self, request, name: str) -> None:
        value = request.query_params.get(name)
        if value is not None and not (value.isascii() and value.isdigit()):
            raise serializers.ValidationError({name: [f"a non-negative integer; got {value!r}"]})

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        limits = {
            self.limit_query_param: f"Rows per page, default {self.default_limit} (also for 0); "
            f"more than {self.max_limit} is clamped to {self.max_limit}.",
            self.offset_query_param: "The number of rows before the page: any rank.",
        }
        for parameter in parameters:
            parameter["schema"]["minimum"] = 0
            parameter["description"] = limits[parameter["name"]]
        return parameters


class LeaderboardView(generics.GenericAPIView):
    """Humans with a finalized ranked match and no ban, by cups (API.md "Leaderboard")."""

    serializer_class = LeaderboardRowSerializer
    pagination_class = LeaderboardPagination

    def get_queryset(self):
        return selectors.leaderboard_queryset()

    @extend_schema(responses=LeaderboardRowSerializer(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.get_queryset())
        rows = selectors.ranked(page, ahead=self.paginator.offset)
        return self.get_paginated_response(LeaderboardRowSerializer(rows, many=True).data)


class AroundQuery(serializers.Serializer):
    radius = serializers.IntegerField(min_value=0, max_value=selectors.MAX_RADIUS, default=5)


class LeaderboardAroundView(generics.GenericAPIView):
    """A player's leaderboard row with up to ``radius`` rows above and below."""

    queryset = Player.objects.all()
    serializer_class = LeaderboardRowSerializer
    pagination_class = None

    @extend_schema(
        parameters=[AroundQuery],
        responses={
            200: inline_serializer(
                "LeaderboardAround", {"results": LeaderboardRowSerializer(many=True)}
            ),
            404: OpenApiResponse(description="no such player, or not on the leaderboard"),
        },
    )
    def get(self, request, player_id):
        query = AroundQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        player = Player.objects.filter(pk=player_id).first()
        rows = player and selectors.leaderboard_around(player, query.validated_data["radius"])
        if rows is None:
            raise NotFound(f"player {player_id} is not on the leaderboard")
        return Response({"results": LeaderboardRowSerializer(rows, many=True).data})

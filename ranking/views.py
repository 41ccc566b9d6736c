"""Player, leaderboard and season-board endpoints (API.md "Players", "Leaderboard",
"Seasons")."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
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
from ranking.models import CupChange, SeasonStanding
from ranking.serializers import (
    CupChangeSerializer,
    LeaderboardRowSerializer,
    PlayerSeasonSerializer,
    PlayerSerializer,
    SeasonBoardPageSerializer,
    SeasonBoardRowSerializer,
    TokenSerializer,
)
from seasons.selectors import season_get


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

    @extend_schema(request=None, responses={201: TokenSerializer})
    @action(detail=True, methods=["post"])
    def token(self, request, pk=None):
        """Mint (or return) the player's token for ``Authorization: Token <key>``."""
        token = services.player_token(self.get_object())
        return Response({"token": token}, status=status.HTTP_201_CREATED)


class LeaderboardPagination(LimitOffsetPagination):
    """Pages of a board: ``offset`` and ``limit`` must be non-negative integers, else 400
    (API.md "Seasons")."""

    default_limit = 100
    max_limit = 500

    def get_limit(self, request):
        limit = self._given(request, self.limit_query_param)
        return self.default_limit if limit is None else min(limit, self.max_limit)

    def get_offset(self, request):
        return self._given(request, self.offset_query_param) or 0

    def _given(self, request, name: str) -> int | None:
        raw = request.query_params.get(name)
        if raw is None:
            return None
        if not raw.isascii() or not raw.isdigit():
            raise serializers.ValidationError(
                {name: [f"must be a non-negative integer; got {raw!r}"]}
            )
        return int(raw)

    def paginate_rows(self, request, page):
        """A page of rows fetched by ``page(offset, limit) -> (rows, count)``, for a board
        whose length is known without counting it."""
        self.request = request
        self.limit = self.get_limit(request)
        self.offset = self.get_offset(request)
        rows, self.count = page(self.offset, self.limit)
        return rows

    def get_next_link(self):
        return None if self.limit == 0 else super().get_next_link()

    def get_previous_link(self):
        return None if self.limit == 0 else super().get_previous_link()


class LeaderboardView(generics.GenericAPIView):
    """Humans with a finalized ranked match and no ban, by cups (API.md "Leaderboard")."""

    serializer_class = LeaderboardRowSerializer
    pagination_class = LeaderboardPagination

    def get(self, request):
        page = self.paginate_queryset(selectors.leaderboard_queryset())
        rows = selectors.ranked(page, ahead=self.paginator.offset)
        return self.get_paginated_response(LeaderboardRowSerializer(rows, many=True).data)


class AroundQuery(serializers.Serializer):
    radius = serializers.IntegerField(min_value=0, max_value=selectors.MAX_RADIUS, default=5)


class LeaderboardAroundView(generics.GenericAPIView):
    """A player's leaderboard row with up to ``radius`` rows above and below."""

    queryset = Player.objects.all()
    serializer_class = LeaderboardRowSerializer

    @extend_schema(
        parameters=[OpenApiParameter("radius", int, description="0..50, default 5")],
        responses={200: LeaderboardRowSerializer(many=True)},
    )
    def get(self, request, player_id):
        query = AroundQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        player = Player.objects.filter(pk=player_id).first()
        rows = player and selectors.leaderboard_around(player, query.validated_data["radius"])
        if rows is None:
            raise NotFound(f"player {player_id} is not on the leaderboard")
        return Response({"results": LeaderboardRowSerializer(rows, many=True).data})


class SeasonLeaderboardView(generics.GenericAPIView):
    """A season's board: the frozen final standings of a finalized season, the live board of
    the current one (API.md "Seasons")."""

    serializer_class = SeasonBoardRowSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter("limit", int, description="rows, at most 500, default 100"),
            OpenApiParameter("offset", int, description="rows before the page, default 0"),
        ],
        responses=SeasonBoardPageSerializer,
    )
    def get(self, request, number):
        season = season_get(number)
        paginator = LeaderboardPagination()
        rows = paginator.paginate_rows(
            request, lambda offset, limit: selectors.season_board(season, offset, limit)
        )
        return paginator.get_paginated_response(SeasonBoardRowSerializer(rows, many=True).data)


def _player(player_id: int) -> Player:
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise NotFound(f"player {player_id} does not exist")
    return player


class PlayerSeasonsView(generics.ListAPIView):
    """The seasons in which a player played a ranked match, newest first."""

    serializer_class = PlayerSeasonSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no player
            return SeasonStanding.objects.none()
        return selectors.player_seasons(_player(self.kwargs["player_id"]))


class PlayerCupsView(generics.ListAPIView):
    """A player's cups ledger, newest first: the cups-over-time chart."""

    serializer_class = CupChangeSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no player
            return CupChange.objects.none()
        return selectors.player_ledger(_player(self.kwargs["player_id"]))

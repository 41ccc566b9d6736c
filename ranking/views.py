"""Player, leaderboard and season-board endpoints (API.md "Players", "Leaderboard",
"Seasons")."""

from typing import cast

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import filters, generics, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from domain.ids import ID_PATTERN
from pagination import CursorPages
from players import services
from players.auth import IsServiceKey, IsServiceKeyOrOwnToken
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


class OneSnapshot:
    """A view whose reads (GET, HEAD) answer from one snapshot of the database
    (``ranking.selectors.one_snapshot``): a row and its rank, a page and its count, as one
    state of the board, whatever commits meanwhile."""

    def dispatch(self, request, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]
        with selectors.one_snapshot():
            return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]


class PlayerPagination(CursorPages):
    """Pages of players by id through cursors (``next`` / ``previous``): no count, so a page
    costs the same at any depth of a million players. A cursor that is none (its position not
    an id) is a 400 on ``cursor``."""

    ordering = "id"


class PlayerSearch(filters.BaseFilterBackend):
    """``?search=``: the players whose username or display name begins with the text,
    ignoring case in every script, as the pages' search finds them
    (``ranking.selectors.name_begins``; blank or left out: every player). Two ranges of the
    prefix indexes, so a page of them costs the same at any size of the ladder. A text with
    a NUL character is a 400."""

    def filter_queryset(self, request, queryset, view):
        try:
            text = serializers.CharField(allow_blank=True).run_validation(
                request.query_params.get("search", "")
            )
        except ValidationError as error:
            raise ValidationError({"search": error.detail}) from None
        return queryset.filter(selectors.name_begins(text)) if text else queryset

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": "search",
                "in": "query",
                "required": False,
                "description": "the start of a username or display name, in any case",
                "schema": {"type": "string"},
            }
        ]


class PlayerViewSet(
    OneSnapshot,
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.ListModelMixin,
    viewsets.GenericViewSet,
):
    """Players: create and mint tokens with a service key; read publicly. The list pages by
    cursor, ordered by id, each player with their rank (one batched lookup per page)."""

    queryset = Player.objects.order_by("id")
    serializer_class = PlayerSerializer
    pagination_class = PlayerPagination
    filter_backends = [PlayerSearch]
    lookup_value_regex = ID_PATTERN

    def get_permissions(self):
        if self.action == "token_revoke":
            return [IsServiceKeyOrOwnToken()]
        if self.action in ("create", "token"):
            return [IsServiceKey()]
        return [AllowAny()]

    def retrieve(self, request, *args, **kwargs):
        (player,), ranks = selectors.players_ranked([self.get_object()])
        context = {**self.get_serializer_context(), "ranks": ranks}
        return Response(PlayerSerializer(player, context=context).data)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset())) or []
        players, ranks = selectors.players_ranked(page)
        context = {**self.get_serializer_context(), "ranks": ranks}
        return self.get_paginated_response(
            PlayerSerializer(players, many=True, context=context).data
        )

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
        """Mint a new token of the player for ``Authorization: Token <key>`` (API.md
        "Conventions"): shown only in this answer, valid until ``expires_at``
        (``KORT_PLAYER_TOKEN_DAYS``); the player's earlier tokens stay valid.

        Bots get no token: they cannot log in (a 400)."""
        minted = services.player_token(self.get_object())
        body = {"token": minted.key, "expires_at": minted.expires_at}
        return Response(TokenSerializer(body).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=None,
        responses={
            204: OpenApiResponse(description="every token of the player is revoked"),
            403: OpenApiResponse(description="a token of another player"),
        },
    )
    @token.mapping.delete
    def token_revoke(self, request, pk=None):
        """Revoke every token of the player (API.md "Conventions"), with a service key or one
        of the player's own tokens: each one answers 401 from then on."""
        services.player_tokens_revoke(self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


NON_NEGATIVE = {"type": "integer", "minimum": 0}
"""The schema of ``limit`` and ``offset`` (API.md "Seasons": not a non-negative integer is a
400)."""


class BoardPagination(LimitOffsetPagination):
    """Limit/offset pages of a board (API.md "Leaderboard"): ``limit`` at most 100 (larger is
    cut to 100; missing or 0: 100), ``offset`` any rank; either one that is not a
    non-negative integer is a 400. The page and its ``count`` come from the board's counts."""

    default_limit = 100
    max_limit = 100

    def paginate_board(self, request, season: int | None = None) -> list[selectors.RankedPlayer]:
        """The rows of the page the request asks for, on the board of ``season``."""
        self.request = request
        self.limit = self.get_limit(request)
        self.offset = self.get_offset(request)
        page = selectors.board_page(self.offset, self.limit, season)
        self.count = page.count
        return page.rows

    def get_limit(self, request) -> int:
        limit = self._non_negative(request, self.limit_query_param)
        return min(limit, self.max_limit) if limit else self.default_limit

    def get_offset(self, request) -> int:
        return self._non_negative(request, self.offset_query_param) or 0

    @staticmethod
    def _non_negative(request, name: str) -> int | None:
        given = request.query_params.get(name)
        if given is None:
            return None
        if not (given.isascii() and given.isdigit()):
            raise ValidationError({name: [f"must be a non-negative integer; got {given!r}"]})
        return int(given)

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


class LeaderboardView(OneSnapshot, generics.GenericAPIView):
    """The current season's board: humans with a finalized ranked match in the season and no
    ban, by cups (API.md "Leaderboard", KORT_RULES §10)."""

    serializer_class = LeaderboardRowSerializer
    pagination_class = BoardPagination

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator reads no season
            return Player.objects.none()
        return selectors.leaderboard_queryset()

    @extend_schema(responses=LeaderboardRowSerializer(many=True))
    def get(self, request):
        rows = cast(BoardPagination, self.paginator).paginate_board(request)
        return self.get_paginated_response(LeaderboardRowSerializer(rows, many=True).data)


class AroundQuery(serializers.Serializer):
    radius = serializers.IntegerField(min_value=0, max_value=selectors.MAX_RADIUS, default=5)


class LeaderboardAroundView(OneSnapshot, generics.GenericAPIView):
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


class SeasonLeaderboardView(OneSnapshot, generics.GenericAPIView):
    """A season's board: the frozen final standings of a finalized season, the live board of
    the current one (API.md "Seasons")."""

    serializer_class = SeasonBoardRowSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter("limit", NON_NEGATIVE, description="rows, at most 100, default 100"),
            OpenApiParameter("offset", NON_NEGATIVE, description="rows before the page, default 0"),
        ],
        responses=SeasonBoardPageSerializer,
    )
    def get(self, request, number):
        season = season_get(number)
        paginator = BoardPagination()
        rows = paginator.paginate_rows(
            request, lambda offset, limit: selectors.season_board(season, offset, limit)
        )
        return paginator.get_paginated_response(SeasonBoardRowSerializer(rows, many=True).data)


def _player(player_id: int) -> Player:
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise NotFound(f"player {player_id} does not exist")
    return player


class PlayerSeasonsView(OneSnapshot, generics.ListAPIView):
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

"""Statistics endpoints (API.md "Players": ``/players/{id}/stats/``, ``/players/me/stats/``,
``/players/{id}/partners/``, ``/opponents/``, ``/versus/{other}/``, each with ``?mode=`` and
``?season=N``; "Seasons": ``?season=N``)."""

import re
from collections.abc import Callable

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from domain.errors import RuleError
from matches.kort.rules import SHUTOUT_OUTCOMES, STATS_SIDES, Mode
from players.auth import IsPlayer
from players.models import Player
from seasons.selectors import season_get
from stats.models import COUNT_FIELDS
from stats.selectors import (
    DEFAULT_PAIR_PAGE,
    MAX_PAIR_PAGE,
    PairPage,
    PairSide,
    pair_page,
    player_stats,
    player_versus,
)


def _serializer(name: str, fields: Callable[[], dict[str, serializers.Field]]) -> type:
    """A serializer (for the schema) named ``name`` of the fields ``fields()`` makes, in their
    order (a serializer orders its fields as they were made)."""
    return type(name, (serializers.Serializer,), fields())


OutcomeCountSerializer = _serializer(
    "OutcomeCountSerializer", lambda: {side: serializers.IntegerField() for side in STATS_SIDES}
)
OutcomesSerializer = _serializer(
    "OutcomesSerializer",
    lambda: {outcome.value: OutcomeCountSerializer() for outcome in SHUTOUT_OUTCOMES},
)
StreakRunSerializer = _serializer(
    "StreakRunSerializer",
    lambda: {"current": serializers.IntegerField(), "best": serializers.IntegerField()},
)
StreaksSerializer = _serializer(
    "StreaksSerializer", lambda: {"win": StreakRunSerializer(), "loss": StreakRunSerializer()}
)
PlayerStatsSerializer = _serializer(
    "PlayerStatsSerializer",
    lambda: {
        **{name: serializers.IntegerField() for name in COUNT_FIELDS},
        "outcomes": OutcomesSerializer(),
        "cups": serializers.IntegerField(),
        "best_cups": serializers.IntegerField(),
        "streaks": StreaksSerializer(),
    },
)
"""The KORT_RULES §8 figures of one player, in the order of the answer: the counts of the
rules' list (``rules.STATS_COUNTS``), each shutout outcome for and against, the cups now and
best, and the streaks of §12."""


MODES = [str(mode) for mode in Mode]


class SeasonNumberField(serializers.IntegerField):
    """A season's number as a query gives it: digits only (``1.0`` or ``+1`` is none; ``-1`` is
    a number below the first season)."""

    def to_internal_value(self, data):
        if not re.fullmatch(r"-?[0-9]+", str(data)):
            self.fail("invalid")
        return super().to_internal_value(data)


class SeasonQuery(serializers.Serializer):
    season = SeasonNumberField(min_value=1, required=False)
    mode = serializers.ChoiceField(choices=MODES, required=False)


SEASON_PARAMETER = OpenApiParameter(
    "season",
    {"type": "integer", "minimum": 1},
    description="a season's number: its matches only (default: all time)",
)
MODE_PARAMETER = OpenApiParameter(
    "mode",
    {"type": "string", "enum": MODES},
    description="that mode's matches only (default: ranked and room alike, KORT_RULES §12)",
)


def figures_query(request) -> tuple[str | None, int | None]:
    """The ``(mode, season)`` a read of figures asks for (None: both modes, all time): 400
    naming the field when ``mode`` is not ``ranked`` / ``room`` or ``season`` is not a season
    number, 404 for an unknown season (API.md "Players", "Seasons")."""
    # As a plain mapping, so that an empty ``?season=`` is refused, not read as left out.
    query = SeasonQuery(data=request.query_params.dict())
    query.is_valid(raise_exception=True)
    season = query.validated_data.get("season")
    if season is not None:
        season_get(season)
    return query.validated_data.get("mode"), season


def stats_answer(request, player: Player) -> Response:
    """The statistics of ``player`` over all time, or over the season ``?season=N``, over
    both modes or ``?mode=`` (see :func:`figures_query`)."""
    mode, season = figures_query(request)
    return Response(player_stats(player, season, mode))


class PlayerStatsView(APIView):
    """Any player's statistics (public), with their streaks (KORT_RULES §12)."""

    @extend_schema(parameters=[SEASON_PARAMETER, MODE_PARAMETER], responses=PlayerStatsSerializer)
    def get(self, request, player_id):
        return stats_answer(request, get_object_or_404(Player, pk=player_id))


class MyStatsView(APIView):
    """The statistics of the player whose token is presented."""

    permission_classes = [IsPlayer]

    @extend_schema(parameters=[SEASON_PARAMETER, MODE_PARAMETER], responses=PlayerStatsSerializer)
    def get(self, request):
        return stats_answer(request, request.user.player)


# --- partners, opponents, versus (KORT_RULES §12) ---------------------------------------------

PairPlayerSerializer = _serializer(
    "PairPlayerSerializer",
    lambda: {"id": serializers.IntegerField(), "display_name": serializers.CharField()},
)
PairRowSerializer = _serializer(
    "PairRowSerializer",
    lambda: {
        "player": PairPlayerSerializer(),
        "matches": serializers.IntegerField(),
        "won": serializers.IntegerField(),
        "cups": serializers.IntegerField(),
    },
)
PairPageSerializer = _serializer(
    "PairPageSerializer",
    lambda: {
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": PairRowSerializer(many=True),
    },
)
"""A page of a partners or opponents table: cursor links (no count), most matches first."""
PairCountSerializer = _serializer(
    "PairCountSerializer",
    lambda: {"matches": serializers.IntegerField(), "won": serializers.IntegerField()},
)
VersusSerializer = _serializer(
    "VersusSerializer",
    lambda: {"with": PairCountSerializer(), "against": PairCountSerializer()},
)


class PairPageQuery(serializers.Serializer):
    cursor = serializers.CharField(required=False, allow_blank=True)  # blank: the first page
    page_size = serializers.IntegerField(min_value=1, required=False)


PAIR_PAGE_PARAMETERS = [
    SEASON_PARAMETER,
    MODE_PARAMETER,
    OpenApiParameter("cursor", str, description="the page a `next` or `previous` link names"),
    OpenApiParameter(
        "page_size",
        {"type": "integer", "minimum": 1},
        description=f"rows per page, default {DEFAULT_PAIR_PAGE}; more than {MAX_PAIR_PAGE} "
        f"is cut to {MAX_PAIR_PAGE}",
    ),
]


class PairTableView(APIView):
    """The players a player sat with (``side`` partner) or against (opponent), most matches
    first, then by id (KORT_RULES §12), paged by cursor (``next`` / ``previous``, no count):
    a page deep in a long table costs what the first one costs."""

    side = PairSide.PARTNER

    @extend_schema(parameters=PAIR_PAGE_PARAMETERS, responses=PairPageSerializer)
    def get(self, request, player_id):
        player = get_object_or_404(Player, pk=player_id)
        mode, season = figures_query(request)
        query = PairPageQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        size = min(query.validated_data.get("page_size", DEFAULT_PAIR_PAGE), MAX_PAIR_PAGE)
        page = pair_page(
            player.pk,
            self.side,
            mode=mode,
            season=season,
            cursor=query.validated_data.get("cursor") or None,
            size=size,
        )
        return Response(pair_page_answer(request, page))


def pair_page_answer(request, page: PairPage) -> dict:
    """The API's shape of a table's page (API.md "Players"), its links on the request's URL."""
    url = request.build_absolute_uri()

    def link(token: str | None) -> str | None:
        return None if token is None else replace_query_param(url, "cursor", token)

    return {
        "next": link(page.next),
        "previous": link(page.previous),
        "results": [
            {
                "player": {"id": row.player.id, "display_name": row.player.display_name},
                "matches": row.matches,
                "won": row.won,
                "cups": row.cups,
            }
            for row in page.rows
        ],
    }


class PartnersView(PairTableView):
    """The players a player sat with (KORT_RULES §12)."""

    side = PairSide.PARTNER


class OpponentsView(PairTableView):
    """The players a player sat against (KORT_RULES §12); ``won``: matches won against them."""

    side = PairSide.OPPONENT


class VersusView(APIView):
    """Two players' matches together and against each other (KORT_RULES §12); ``won`` by the
    first player."""

    @extend_schema(parameters=[SEASON_PARAMETER, MODE_PARAMETER], responses=VersusSerializer)
    def get(self, request, player_id, other_id):
        player = get_object_or_404(Player, pk=player_id)
        other = get_object_or_404(Player, pk=other_id)
        if other.pk == player.pk:
            raise RuleError("other", "a player is neither their own partner nor opponent (§12)")
        mode, season = figures_query(request)
        versus = player_versus(player.pk, other.pk, mode=mode, season=season)
        return Response(
            {
                "with": {"matches": versus.together.matches, "won": versus.together.won},
                "against": {"matches": versus.against.matches, "won": versus.against.won},
            }
        )

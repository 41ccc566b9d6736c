"""Statistics endpoints (API.md "Players": ``/players/{id}/stats/``, ``/players/me/stats/``;
"Seasons": ``?season=N``)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response
from rest_framework.views import APIView

from players.auth import IsPlayer
from players.models import Player
from seasons.selectors import season_get
from stats.selectors import player_stats


class OutcomeCountSerializer(serializers.Serializer):
    team = serializers.IntegerField()
    opponents = serializers.IntegerField()


class OutcomesSerializer(serializers.Serializer):
    kort = OutcomeCountSerializer()
    at_kort = OutcomeCountSerializer()
    bavan = OutcomeCountSerializer()
    at_bavan = OutcomeCountSerializer()
    bavan_failed = OutcomeCountSerializer()


class PlayerStatsSerializer(serializers.Serializer):
    """The KORT_RULES §8 figures of one player."""

    matches_played = serializers.IntegerField()
    matches_won = serializers.IntegerField()
    matches_lost = serializers.IntegerField()
    rounds_played = serializers.IntegerField()
    rounds_won = serializers.IntegerField()
    cups = serializers.IntegerField()
    best_cups = serializers.IntegerField()
    outcomes = OutcomesSerializer()
    bavan_called = serializers.IntegerField()
    bavan_made = serializers.IntegerField()


class SeasonQuery(serializers.Serializer):
    season = serializers.IntegerField(min_value=1, required=False)


SEASON_PARAMETER = OpenApiParameter(
    "season",
    {"type": "integer", "minimum": 1},
    description="a season's number: its matches only (default: all time)",
)


def stats_answer(request, player: Player) -> Response:
    """The statistics of ``player`` over all time, or over the season ``?season=N``: 400 when
    N is not a season number, 404 for an unknown season (API.md "Seasons")."""
    # As a plain mapping, so that an empty ``?season=`` is refused, not read as left out.
    query = SeasonQuery(data=request.query_params.dict())
    query.is_valid(raise_exception=True)
    season = query.validated_data.get("season")
    if season is not None:
        season_get(season)
    return Response(player_stats(player, season))


class PlayerStatsView(APIView):
    """Any player's statistics (public)."""

    @extend_schema(parameters=[SEASON_PARAMETER], responses=PlayerStatsSerializer)
    def get(self, request, player_id):
        return stats_answer(request, get_object_or_404(Player, pk=player_id))


class MyStatsView(APIView):
    """The statistics of the player whose token is presented."""

    permission_classes = [IsPlayer]

    @extend_schema(parameters=[SEASON_PARAMETER], responses=PlayerStatsSerializer)
    def get(self, request):
        return stats_answer(request, request.user.player)

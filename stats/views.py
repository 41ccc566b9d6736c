"""Statistics endpoints (API.md "Players": ``/players/{id}/stats/``, ``/players/me/stats/``;
"Seasons": ``?season=N``)."""

from collections.abc import Callable

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.kort.rules import SHUTOUT_OUTCOMES, STATS_SIDES
from players.auth import IsPlayer
from players.models import Player
from seasons.selectors import season_get
from stats.models import COUNT_FIELDS
from stats.selectors import player_stats


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

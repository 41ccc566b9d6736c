"""Statistics endpoints (API.md "Players": ``/players/{id}/stats/``, ``/players/me/stats/``)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response
from rest_framework.views import APIView

from players.auth import IsPlayer
from players.models import Player
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


class PlayerStatsView(APIView):
    """Any player's statistics (public)."""

    @extend_schema(responses=PlayerStatsSerializer)
    def get(self, request, player_id):
        return Response(player_stats(get_object_or_404(Player, pk=player_id)))


class MyStatsView(APIView):
    """The statistics of the player whose token is presented."""

    permission_classes = [IsPlayer]

    @extend_schema(responses=PlayerStatsSerializer)
    def get(self, request):
        return Response(player_stats(request.user.player))

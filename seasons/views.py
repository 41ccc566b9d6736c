"""Season endpoints (API.md "Seasons"): the list, the current season and one season. Its
leaderboard is the ladder's (``ranking.views``)."""

from rest_framework import generics, serializers
from rest_framework.response import Response

from seasons.models import Season
from seasons.selectors import current_season, season_get, seasons_newest_first


class SeasonSerializer(serializers.ModelSerializer):
    class Meta:
        model = Season
        fields = ["number", "name", "starts_at", "ends_at", "status"]


class SeasonListView(generics.ListAPIView):
    """Every season, newest first."""

    serializer_class = SeasonSerializer

    def get_queryset(self):
        return seasons_newest_first()


class SeasonCurrentView(generics.GenericAPIView):
    """The current season (``finalizing`` while its end runs)."""

    serializer_class = SeasonSerializer

    def get(self, request):
        return Response(SeasonSerializer(current_season()).data)


class SeasonDetailView(generics.GenericAPIView):
    """One season by its number; 404 for an unknown number."""

    serializer_class = SeasonSerializer

    def get(self, request, number):
        return Response(SeasonSerializer(season_get(number)).data)

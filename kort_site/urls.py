"""URLs: the API under /api/v1/, its schema and docs, and the admin."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from matches.search_views import BavanGuaranteedView
from matches.views import MatchViewSet, PlayerMatchesView
from ranking.views import LeaderboardAroundView, LeaderboardView, PlayerViewSet
from stats.views import MyStatsView, PlayerStatsView

router = DefaultRouter()
router.register("players", PlayerViewSet, basename="player")
router.register("matches", MatchViewSet, basename="match")

api_v1 = [
    path("players/me/stats/", MyStatsView.as_view(), name="my-stats"),
    path("players/<int:player_id>/stats/", PlayerStatsView.as_view(), name="player-stats"),
    path("players/<int:player_id>/matches/", PlayerMatchesView.as_view(), name="player-matches"),
    path("leaderboard/", LeaderboardView.as_view(), name="leaderboard"),
    path("kort/bavan-guaranteed/", BavanGuaranteedView.as_view(), name="bavan-guaranteed"),
    path(
        "leaderboard/around/<int:player_id>/",
        LeaderboardAroundView.as_view(),
        name="leaderboard-around",
    ),
    *router.urls,
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]

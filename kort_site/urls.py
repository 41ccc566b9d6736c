"""URLs: the API under /api/v1/, its schema and docs, the admin, the operator's health checks
and metrics (/health/live, /health/ready, /metrics, each with or without a trailing slash), and
the players' pages under a language prefix (/en/, /ru/; / redirects to the one Accept-Language
picks)."""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import URLPattern, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from belote.views import BeloteProtocolViewSet, BeloteScoreView
from kort_site import converters  # noqa: F401  (registers the "id" path converter)
from kort_site.operations.views import LiveView, MetricsView, OperatorView, ReadyView
from matches.api.bavan_search import BavanGuaranteedView
from matches.api.views import MatchViewSet, PlayerMatchesView
from matches.live_vote.api import BavanVoteView, RoundFinishView, SeatLeaveView
from ranking.views import (
    LeaderboardAroundView,
    LeaderboardView,
    PlayerCupsView,
    PlayerSeasonsView,
    PlayerViewSet,
    SeasonLeaderboardView,
)
from seasons.views import SeasonCurrentView, SeasonDetailView, SeasonListView
from stats.views import MyStatsView, OpponentsView, PartnersView, PlayerStatsView, VersusView


def operator_path(route: str, view: type[OperatorView], name: str) -> list[URLPattern]:
    """An operator's endpoint at ``route`` and, answering the same in place (no redirect), at
    ``route`` with a trailing slash, which the schema leaves out (it lists the one path)."""
    return [
        path(f"{route}/", view.as_view(schema=None), name=name),
        path(route, view.as_view(), name=name),  # last: the one its name reverses to
    ]


router = DefaultRouter()
router.register("players", PlayerViewSet, basename="player")
router.register("matches", MatchViewSet, basename="match")
router.register("belote/protocols", BeloteProtocolViewSet, basename="belote-protocol")

api_v1 = [
    path("players/me/stats/", MyStatsView.as_view(), name="my-stats"),
    path("players/<id:player_id>/stats/", PlayerStatsView.as_view(), name="player-stats"),
    path("players/<id:player_id>/matches/", PlayerMatchesView.as_view(), name="player-matches"),
    path("players/<id:player_id>/seasons/", PlayerSeasonsView.as_view(), name="player-seasons"),
    path("players/<id:player_id>/cups/", PlayerCupsView.as_view(), name="player-cups"),
    path("players/<id:player_id>/partners/", PartnersView.as_view(), name="player-partners"),
    path("players/<id:player_id>/opponents/", OpponentsView.as_view(), name="player-opponents"),
    path(
        "players/<id:player_id>/versus/<id:other_id>/",
        VersusView.as_view(),
        name="player-versus",
    ),
    path("leaderboard/", LeaderboardView.as_view(), name="leaderboard"),
    path("seasons/", SeasonListView.as_view(), name="seasons"),
    path("seasons/current/", SeasonCurrentView.as_view(), name="season-current"),
    path("seasons/<id:number>/", SeasonDetailView.as_view(), name="season"),
    path(
        "seasons/<id:number>/leaderboard/",
        SeasonLeaderboardView.as_view(),
        name="season-leaderboard",
    ),
    path("kort/bavan-guaranteed/", BavanGuaranteedView.as_view(), name="bavan-guaranteed"),
    path(
        "leaderboard/around/<id:player_id>/",
        LeaderboardAroundView.as_view(),
        name="leaderboard-around",
    ),
    path(
        "matches/<id:match_id>/rounds/<id:number>/vote/",
        BavanVoteView.as_view(),
        name="round-vote",
    ),
    path(
        "matches/<id:match_id>/rounds/<id:number>/finish/",
        RoundFinishView.as_view(),
        name="round-finish",
    ),
    path(
        "matches/<id:match_id>/seats/<id:seat>/leave/", SeatLeaveView.as_view(), name="seat-leave"
    ),
    path("belote/score/", BeloteScoreView.as_view(), name="belote-score"),
    *router.urls,
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its script as a file of its own, as the Content-Security-Policy
    # (no inline script, kort_site.settings) wants; its template takes its styles from a file.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="schema", template_name="kort_site/swagger_ui.html"
        ),
        name="docs",
    ),
    *operator_path("health/live", LiveView, "health-live"),
    *operator_path("health/ready", ReadyView, "health-ready"),
    *operator_path("metrics", MetricsView, "metrics"),
    *i18n_patterns(path("", include("pages.urls"))),
]

handler500 = "kort_site.operations.unavailable.server_error"

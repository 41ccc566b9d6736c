"""The players' pages, mounted under a language prefix (``/en/``, ``/ru/``) by the project's
URLs, which also register the ``id`` path converter (``domain.ids.ID_PATTERN``) used here."""

from django.urls import path

from pages import views

app_name = "pages"

urlpatterns = [
    path("", views.leaderboard, name="leaderboard"),
    path("players/<id:player_id>/", views.player, name="player"),
    path("matches/<id:match_id>/", views.match, name="match"),
    path("seasons/<id:number>/", views.season, name="season"),
]

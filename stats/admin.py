"""Admin of the "My games" statistics (KORT_RULES §8): read-only, written by finalization."""

from django.contrib import admin

from players.admin import ReadOnlyAdminMixin
from stats.models import PlayerStats


@admin.register(PlayerStats)
class PlayerStatsAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = [
        "player",
        "matches_played",
        "matches_won",
        "rounds_played",
        "rounds_won",
        "bavan_called",
        "bavan_made",
    ]
    search_fields = ["player__username", "player__display_name"]
    list_select_related = ["player"]

"""Admin of the "My games" statistics (KORT_RULES §8, §10): read-only, written by finalization
and voiding."""

from django.contrib import admin

from players.admin import ReadOnlyAdminMixin
from stats.models import PlayerStats, SeasonStats


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


@admin.register(SeasonStats)
class SeasonStatsAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Each player's statistics and cups of one season (KORT_RULES §10)."""

    list_display = [
        "player",
        "season",
        "ranked_played",
        "ranked_won",
        "cups",
        "best_cups",
        "matches_played",
        "rounds_played",
    ]
    list_filter = ["season"]
    search_fields = ["player__username", "player__display_name"]
    list_select_related = ["player"]

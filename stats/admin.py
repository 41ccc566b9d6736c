"""Admin of the "My games" statistics (KORT_RULES §8, §10): read-only, written by finalization
and voiding."""

from django.contrib import admin

from players.admin import ReadOnlyAdminMixin
from stats.models import COUNT_FIELDS, PlayerStats, SeasonStats


@admin.register(PlayerStats)
class PlayerStatsAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["player", *COUNT_FIELDS]
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
        *COUNT_FIELDS,
    ]
    list_filter = ["season"]
    search_fields = ["player__username", "player__display_name"]
    list_select_related = ["player"]

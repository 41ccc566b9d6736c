"""Admin of the matches app: KORT matches.

A KORT match is a read-only view with its seats and rounds (the ladder's admin adds its cup
changes): matches are written only by game servers through the API, and a finalized ranked match
is never deleted, its cup changes stand (API.md "Leaderboard").
"""

from django.contrib import admin

from matches.models import Match, MatchStatus, Round, Seat
from players.admin import ReadOnlyAdminMixin


class SeatInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = Seat
    fields = ["seat", "player", "left_at"]
    extra = 0


class RoundInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = Round
    fields = [
        "number",
        "status",
        "trump_seat",
        "tricks_a",
        "tricks_b",
        "bavan",
        "outcome",
        "winner",
        "wins_awarded",
    ]
    extra = 0


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "mode",
        "status",
        "wins",
        "winner",
        "season",
        "created_at",
        "finalized_at",
    ]
    list_filter = ["mode", "status", "season"]
    search_fields = ["external_id", "seats__player__username"]
    inlines = [SeatInline, RoundInline]

    @admin.display(description="wins (A:B)")
    def wins(self, match: Match) -> str:
        return f"{match.wins_a}:{match.wins_b}"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        """Refused for a finalized (or voided) ranked match (API.md "Leaderboard"); the bulk
        delete action asks this for every selected match, so it refuses them too."""
        over = (MatchStatus.FINALIZED, MatchStatus.VOID)
        if obj is not None and obj.is_ranked and obj.status in over:
            return False
        return super().has_delete_permission(request, obj)

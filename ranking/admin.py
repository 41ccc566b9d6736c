"""Admin of the cups ledger (KORT_RULES §7; API.md "Leaderboard").

The ledger is written only by match finalization (or ``rebuild_ladder``), so the admin shows it
read-only: on its own page and, on each match's page, as the match's cup changes. The ladder
builds on matches, so it extends the match admin rather than the match admin knowing the ledger.
"""

from django.contrib import admin

from matches.admin import MatchAdmin
from matches.models import Match
from players.admin import ReadOnlyAdminMixin
from ranking.models import CupChange


class CupChangeInline(ReadOnlyAdminMixin, admin.TabularInline):
    """The ledger rows of one match, shown on the match's page."""

    model = CupChange
    fields = ["player", "delta", "created_at"]
    extra = 0


class MatchWithCupsAdmin(MatchAdmin):
    """The match admin with the match's cup changes under its seats and rounds."""

    inlines = [*MatchAdmin.inlines, CupChangeInline]


admin.site.unregister(Match)
admin.site.register(Match, MatchWithCupsAdmin)


@admin.register(CupChange)
class CupChangeAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The cups ledger: one row per finalized ranked match and human player, never edited."""

    list_display = ["created_at", "player", "delta", "match"]
    list_filter = ["match__mode"]
    search_fields = ["player__username", "player__display_name"]
    list_select_related = ["player", "match"]

"""Admin of the cups ledger and of bans (KORT_RULES §7, §10; API.md "Leaderboard").

The ledger is written only by match finalization (or ``rebuild_ladder``), so the admin shows it
read-only: on its own page and, on each match's page, as the match's cup changes. The ladder
builds on matches and players, so it extends their admins rather than they knowing the ladder:
the match admin shows the cup changes, the player admin bans and unbans through
``ranking.services.player_ban``, which moves the player off or back on the leaderboard.
"""

from django.contrib import admin, messages

from matches.admin import MatchAdmin
from matches.models import Match
from players.admin import PlayerAdmin, ReadOnlyAdminMixin
from players.models import Player
from ranking.models import CupChange
from ranking.services import player_ban


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


class PlayerWithBansAdmin(PlayerAdmin):
    """The player admin with bans: the actions and the change form's "banned" box both go
    through ``player_ban``."""

    actions = ["ban", "unban"]

    @admin.action(description="Ban the selected players (off the leaderboard, no new matches)")
    def ban(self, request, queryset):
        self._set_banned(request, queryset, banned=True)

    @admin.action(description="Unban the selected players")
    def unban(self, request, queryset):
        self._set_banned(request, queryset, banned=False)

    def _set_banned(self, request, queryset, *, banned: bool) -> None:
        changed = sum(player_ban(player, banned) for player in queryset.order_by("pk"))
        verb = "banned" if banned else "unbanned"
        self.message_user(request, f"{changed} player(s) {verb}.", messages.SUCCESS)

    def fields_to_save(self, form) -> list[str]:
        return [name for name in super().fields_to_save(form) if name != "is_banned"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and "is_banned" in form.changed_data:
            player_ban(obj, obj.is_banned)


admin.site.unregister(Player)
admin.site.register(Player, PlayerWithBansAdmin)


@admin.register(CupChange)
class CupChangeAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The cups ledger: one row per finalized ranked match and human player, never edited."""

    list_display = ["created_at", "player", "delta", "match"]
    list_filter = ["match__mode"]
    search_fields = ["player__username", "player__display_name"]
    list_select_related = ["player", "match"]

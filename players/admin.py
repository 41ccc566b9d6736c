"""Admin of players (API.md "Players"), and the read-only pages other apps' admins use.

Cups and best cups are written only by the ladder (finalization, season ends, voids, or
``rebuild_ladder``), so the admin shows them read-only. A ban moves the player off the
leaderboard, so bans are the ladder's to write: ``ranking.admin`` extends this admin with them.
Service keys use the admin of
djangorestframework-api-key.
"""

from django.contrib import admin

from players.models import Player
from players.services import player_create


class ReadOnlyAdminMixin:
    """View-only pages: no add, change or delete (for a ``ModelAdmin`` or an inline)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """Players: search, filter, change names. A new player is made by ``player_create``, so a
    human gets a login, as through the API."""

    list_display = [
        "username",
        "display_name",
        "is_bot",
        "is_banned",
        "cups",
        "best_cups",
        "cups_changed_at",
    ]
    list_filter = ["is_bot", "is_banned"]
    search_fields = ["username", "display_name"]
    add_fields = ["username", "display_name", "is_bot"]
    change_fields = [*add_fields, "is_banned", "user", "cups", "best_cups", "cups_changed_at"]
    # Bot or human is fixed at creation: a bot has no login and no cups (KORT_RULES §7).
    change_readonly_fields = ["is_bot", "user", "cups", "best_cups", "cups_changed_at"]

    def get_fields(self, request, obj=None):
        return self.change_fields if obj else self.add_fields

    def get_readonly_fields(self, request, obj=None):
        return self.change_readonly_fields if obj else []

    def save_model(self, request, obj, form, change):
        if change:
            obj.save(update_fields=self.fields_to_save(form))
            return
        created = player_create(
            username=obj.username, display_name=obj.display_name, is_bot=obj.is_bot
        )
        obj.pk = created.pk
        obj.refresh_from_db()

    def fields_to_save(self, form) -> list[str]:
        """The fields a change form writes: those it changed, so cups that a finalization
        wrote meanwhile stay."""
        return list(form.changed_data)

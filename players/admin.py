"""Admin of players (API.md "Players"), and the read-only pages other apps' admins use.

Cups and best cups are written only by the ladder (finalization, season ends, voids, or
``rebuild_ladder``), so the admin shows them read-only. A ban moves the player off the
leaderboard, so bans are the ladder's to write: ``ranking.admin`` extends this admin with them.
Service keys use the admin of
djangorestframework-api-key; player tokens are listed by prefix, and revoked, here.
"""

from django import forms
from django.contrib import admin, messages
from rest_framework.authtoken.models import TokenProxy

from players.models import Player, PlayerToken
from players.services import player_create, tokens_revoke
from players.usernames import UsernameError, username_key, username_normal

# DRF's tokens are no longer the player tokens (players.models.PlayerToken): their table is
# empty since the migration that hashed them (players 0006), so their admin page goes.
admin.site.unregister(TokenProxy)


class ReadOnlyAdminMixin:
    """View-only pages: no add, change or delete (for a ``ModelAdmin`` or an inline)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class PlayerForm(forms.ModelForm):
    """A username as the API takes it: the rule of API.md "Players", stored in NFKC form,
    unique ignoring case."""

    def clean_username(self) -> str:
        try:
            username = username_normal(self.cleaned_data["username"])
        except UsernameError as refused:
            raise forms.ValidationError(refused.message) from refused
        others = Player.objects.exclude(pk=self.instance.pk)
        if others.filter(username_key=username_key(username)).exists():
            raise forms.ValidationError(f"a player named {username!r} already exists")
        return username


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
    form = PlayerForm
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
        wrote meanwhile stay (a new username with its folded form)."""
        changed = list(form.changed_data)
        return [*changed, "username_key"] if "username" in changed else changed


@admin.register(PlayerToken)
class PlayerTokenAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Player tokens by prefix (the first characters of the token; the token itself is not
    stored), with the revoke action. Tokens are minted through the API only: a token is shown
    once, to the game server that asked for it."""

    list_display = ["prefix", "player", "created_at", "expires_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["prefix", "player__username"]
    list_select_related = ["player"]
    actions = ["revoke"]

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset):
        revoked = tokens_revoke(queryset)
        self.message_user(request, f"{revoked} token(s) revoked.", messages.SUCCESS)

"""Admin of the ladder: the cups ledger and the seasons' frozen standings, read-only (KORT_RULES
§7, §10; API.md "Leaderboard"), voiding matches (§11) and bans.

The ledger is written only by finalization, the season ends, voids (or ``rebuild_ladder``), so
the admin shows it read-only: on its own page and, on each match's page, as the match's cup
changes. The ladder builds on matches, players and seasons, so it extends their admins rather
than those admins knowing the ledger: the match admin gains the cup changes and the "void"
action, the season admin a link to the season's final standings, the player admin bans and
unbans through ``ranking.services.player_ban``, which moves the player off or back on the
leaderboard, and bans with a refund (``player_ban_refund``, §11).
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from domain.errors import DomainError
from matches.admin import MatchAdmin
from matches.models import Match
from players.admin import PlayerAdmin, ReadOnlyAdminMixin
from players.models import Player
from ranking.models import CupChange, SeasonEnd, SeasonStanding
from ranking.services import match_void, player_ban, player_ban_refund
from seasons.admin import SeasonAdmin
from seasons.models import Season


class CupChangeInline(ReadOnlyAdminMixin, admin.TabularInline):
    """The ledger rows of one match, shown on the match's page."""

    model = CupChange
    fields = ["player", "kind", "delta", "cups_after", "season", "created_at"]
    extra = 0


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="Shown with each voided match (API.md: void_reason).",
    )


VOID_EXPLANATION = (
    'Voiding reverses each match\'s cups with ledger rows of kind "void" in the current season '
    "and takes the match out of its players' statistics, all time and its season's (KORT_RULES "
    "§11). The frozen standings of a finalized season stay as they are. A void is not undone."
)
REFUND_EXPLANATION = (
    "A ban with a refund voids every finalized ranked match of each player completed in the "
    "current season (their partners and opponents get their cups back, and so do they), then "
    "bans them (KORT_RULES §11). Run again, it changes nothing."
)


def with_reason(
    model_admin: admin.ModelAdmin,
    request,
    objects: list,
    *,
    action: str,
    button: str,
    explanation: str,
    detail,
    apply,
    done: str,
):
    """An admin action that needs a reason: ask for it on a page of its own listing
    ``objects`` (each with ``detail(object)``), then ``apply(object, reason)`` to each in turn
    and say ``done`` with the number it changed; an object it refuses (a domain error) is
    named with the reason, the others go on."""
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    if form.is_valid():
        changed = 0
        for obj in objects:
            try:
                changed += bool(apply(obj, form.cleaned_data["reason"]))
            except DomainError as error:
                model_admin.message_user(request, f"{obj}: {error.message}", messages.ERROR)
        model_admin.message_user(request, done.format(changed), messages.SUCCESS)
        return None
    context = {
        **model_admin.admin_site.each_context(request),
        "title": button,
        "opts": model_admin.model._meta,
        "objects": [(obj, detail(obj)) for obj in objects],
        "explanation": explanation,
        "action": action,
        "button": button,
        "form": form,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "admin/ranking/reasoned_action.html", context)


class MatchWithCupsAdmin(MatchAdmin):
    """The match admin with the match's cup changes under its seats and rounds, and the
    "void" action for those allowed to void matches."""

    inlines = [*MatchAdmin.inlines, CupChangeInline]
    actions = ["void"]

    @admin.action(description="Void the selected finalized matches", permissions=["void"])
    def void(self, request, queryset):
        """Ask for the reason, then void each selected match (KORT_RULES §11); a match that
        cannot be voided is named with the reason, and the others are voided."""
        return with_reason(
            self,
            request,
            list(queryset.order_by("pk")),
            action="void",
            button="Void these matches",
            explanation=VOID_EXPLANATION,
            detail=lambda match: f"{match.status}, season {match.season or '-'}",
            apply=lambda match, reason: match_void(match.pk, reason),
            done="{} match(es) voided.",
        )

    def has_void_permission(self, request):
        return request.user.has_perm("matches.void_match")


admin.site.unregister(Match)
admin.site.register(Match, MatchWithCupsAdmin)


class PlayerWithBansAdmin(PlayerAdmin):
    """The player admin with bans: the actions and the change form's "banned" box both go
    through ``player_ban``."""

    actions = ["ban", "ban_with_refund", "unban"]

    @admin.action(description="Ban the selected players (off the leaderboard, no new matches)")
    def ban(self, request, queryset):
        self._set_banned(request, queryset, banned=True)

    @admin.action(description="Ban the selected players with a refund of this season's matches")
    def ban_with_refund(self, request, queryset):
        """Ask for the reason, then ban each selected player with a refund (KORT_RULES §11)."""
        return with_reason(
            self,
            request,
            list(queryset.order_by("pk")),
            action="ban_with_refund",
            button="Ban with refund",
            explanation=REFUND_EXPLANATION,
            detail=lambda player: "banned" if player.is_banned else "not banned",
            apply=lambda player, reason: player_ban_refund(player.pk, reason).changed,
            done="{} player(s) banned with a refund.",
        )

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


class SeasonWithStandingsAdmin(SeasonAdmin):
    """The season admin with the state of the season's end and a link to its standings."""

    fields = [*SeasonAdmin.fields, "final_standings"]

    @admin.display(description="final standings")
    def final_standings(self, season: Season):
        end = SeasonEnd.objects.filter(season=season).first()
        if end is None:
            return "not ended yet"
        url = reverse("admin:ranking_seasonstanding_changelist")
        return format_html(
            '<a href="{}?season__number__exact={}">{} standing(s)</a> (end: {})',
            url,
            season.number,
            end.standings,
            end.step,
        )


admin.site.unregister(Season)
admin.site.register(Season, SeasonWithStandingsAdmin)


@admin.register(SeasonStanding)
class SeasonStandingAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The frozen final standings of the finalized seasons, never edited."""

    list_display = [
        "season",
        "rank",
        "player",
        "cups",
        "best_cups",
        "matches_played",
        "matches_won",
    ]
    list_filter = ["season"]
    search_fields = ["player__username", "player__display_name"]
    list_select_related = ["player", "season"]
    ordering = ["season", "rank"]


@admin.register(CupChange)
class CupChangeAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The cups ledger: one row per cup change (a ranked match's cups, a season's soft reset,
    a void), never edited."""

    list_display = ["created_at", "player", "kind", "delta", "cups_after", "season", "match"]
    list_filter = ["kind", "season", "match__mode"]
    search_fields = ["player__username", "player__display_name"]
    list_select_related = ["player", "match"]

"""Admin of Bazar Belote score sheets: a sheet with its deals, read-only, as the API scored them
(BELOTE_SCORING §5)."""

from django.contrib import admin

from belote.models import BeloteDeal, BeloteProtocol


class BeloteDealInline(admin.TabularInline):
    model = BeloteDeal
    fields = readonly_fields = (
        "number",
        "playing_pair",
        "contract",
        "suit",
        "contract_number",
        "kontra",
        "trick_whists_playing",
        "trick_whists_whisting",
        "constructions_playing",
        "constructions_whisting",
        "played",
        "points_playing",
        "points_whisting",
        "bait",
        "breakdown",
    )
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(BeloteProtocol)
class BeloteProtocolAdmin(admin.ModelAdmin):
    list_display = ["id", "pair_1", "pair_2", "created_at"]
    search_fields = ["pair_1", "pair_2"]
    readonly_fields = ["service_key", "created_at"]
    inlines = [BeloteDealInline]

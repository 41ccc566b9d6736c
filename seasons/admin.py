"""Admin of the seasons (KORT_RULES §10): the current season's name and end may change; every
other field, and every other season, is read-only. Seasons open and end only through the
ladder's season end, so there is no add or delete."""

from django import forms
from django.contrib import admin
from django.utils import timezone

from domain.errors import DomainError
from seasons.models import Season, SeasonStatus
from seasons.services import season_current_check, season_end_check, season_update

EDITABLE = ("name", "ends_at")


class SeasonForm(forms.ModelForm):
    class Meta:
        model = Season
        fields = list(EDITABLE)

    def clean(self):
        cleaned = super().clean()
        ends_at = self.cleaned_data.get("ends_at")
        try:
            season_current_check(self.instance)
            if "ends_at" in self.changed_data and ends_at is not None:
                season_end_check(self.instance, ends_at, timezone.now())
        except DomainError as error:
            field = error.field if error.field in self.fields else None
            self.add_error(field, error.message)
        return cleaned


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    form = SeasonForm
    list_display = ["number", "name", "starts_at", "ends_at", "status", "finalized_at"]
    list_filter = ["status", "starts_at"]
    search_fields = ["name"]
    fields = ["number", "name", "starts_at", "ends_at", "status", "finalized_at"]

    def get_readonly_fields(self, request, obj=None):
        return [name for name in self.fields if name not in EDITABLE]

    def has_change_permission(self, request, obj=None):
        """Only the current season changes; the others are shown read-only."""
        if obj is not None and obj.status != SeasonStatus.CURRENT:
            return False
        return super().has_change_permission(request, obj)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        changed = {name: form.cleaned_data[name] for name in EDITABLE if name in form.changed_data}
        season_update(obj.number, **changed)

"""The query strings of the pages: the leaderboard's search and the history's filters."""

from django import forms
from django.utils.translation import gettext_lazy as _

from pages.labels import MODES, RESULTS
from players.usernames import USERNAME_STORED_LENGTH


class SearchForm(forms.Form):
    """The leaderboard's search; its input is written out in the template (a search box is
    on every page of the board)."""

    q = forms.CharField(
        label=_("Find a player by username"), max_length=USERNAME_STORED_LENGTH, required=False
    )


class HistoryFilterForm(forms.Form):
    """The filters of the "My games" history, as the API's (``mode``, ``result``)."""

    mode = forms.ChoiceField(
        label=_("Mode"), required=False, choices=[("", _("All")), *MODES.items()]
    )
    result = forms.ChoiceField(
        label=_("Result"),
        required=False,
        choices=[("", _("All")), ("won", RESULTS[True]), ("lost", RESULTS[False])],
    )

    def filters(self) -> dict[str, str]:
        """The valid filters given, by name (an invalid one is left out and shown as an error)."""
        self.is_valid()
        return {name: value for name, value in self.cleaned_data.items() if value}

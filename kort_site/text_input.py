"""Text fields take JSON strings only (API.md "Conventions": bad input is a 400 naming the
field). DRF's ``CharField`` turns a number into its text (``-792`` into ``"-792"``); every
``CharField`` of the API (usernames, names, ids of the game servers, and DRF's own subclasses
such as ``RegexField`` and ``SlugField``) refuses any value that is not a string instead, with
DRF's own message for it ("Not a valid string.")."""

from typing import Any

from rest_framework import serializers

_coerce = serializers.CharField.to_internal_value


def _strings_only(field: serializers.CharField, data: Any) -> str:
    if not isinstance(data, str):
        field.fail("invalid")
    return _coerce(field, data)


def refuse_non_strings() -> None:
    """Make every ``CharField`` refuse a value that is not a string (called once, as the
    project's app loads)."""
    serializers.CharField.to_internal_value = _strings_only  # type: ignore[method-assign, assignment]

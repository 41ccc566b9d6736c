"""Path converters: ids in URLs are positive integers that fit the database's 64-bit ids, so a
larger number is a 404 like any unknown id, never an overflow."""

from django.urls import register_converter

ID_PATTERN = "[0-9]{1,18}"
"""An id in a path: up to 18 digits (a viewset's ``lookup_value_regex`` uses it too)."""


class IdConverter:
    regex = ID_PATTERN

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")

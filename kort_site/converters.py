"""Path converters: ids in URLs are positive integers that fit the database's 64-bit ids, so a
larger number is a 404 like any unknown id, never an overflow."""

from django.urls import register_converter

from domain.ids import ID_PATTERN


class IdConverter:
    regex = ID_PATTERN

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")

"""Request parsing (API.md "Conventions"): every JSON body the API reads is bad input (400)
when it cannot be parsed, is nested too deeply to parse, or repeats a key in one object
(``{"mode": "room", "mode": "ranked"}``, which a lenient parser reads as its last value). A
repeated key is named as a field: ``{"mode": [...]}``, nested under the keys (and list
indexes) that lead to its object."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.utils import json

REPEATED_KEY = "this key appears more than once in its object; send each key once"


class _Object(dict):
    """An object whose pairs repeat ``repeated``, its first key given more than once."""

    def __init__(self, pairs: list[tuple[str, Any]], repeated: str):
        super().__init__(pairs)
        self.repeated = repeated


class _Objects:
    """The parser's ``object_pairs_hook``: builds each object, marking those that repeat a key."""

    def __init__(self) -> None:
        self.repeated = False

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = dict(pairs)
        if len(built) == len(pairs):
            return built
        self.repeated = True
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                break
            seen.add(key)
        return _Object(pairs, key)


def _repeated_key_error(value: Any) -> dict[str, Any] | None:
    """The error naming the first object with a repeated key, nested as the fields lead to it."""
    if isinstance(value, _Object):
        return {value.repeated: [REPEATED_KEY]}
    children: Iterable[tuple[str, Any]]
    if isinstance(value, dict):
        children = value.items()
    elif isinstance(value, list):
        children = ((str(index), child) for index, child in enumerate(value))
    else:
        return None
    for name, child in children:
        error = _repeated_key_error(child)
        if error is not None:
            return {name: error}
    return None


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        objects = _Objects()
        try:
            document = json.loads(stream.read().decode(encoding), object_pairs_hook=objects)
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from None
        except RecursionError:
            raise ParseError("JSON parse error - the document is nested too deeply") from None
        if objects.repeated:
            raise ValidationError(_repeated_key_error(document))
        return document

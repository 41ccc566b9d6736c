"""Template helpers of the players' pages: the language switch and numbers in the reader's
locale."""

from dataclasses import dataclass
from functools import cache

from django import template
from django.conf import settings
from django.urls import get_urlconf, reverse, translate_url
from django.utils import translation
from django.utils.formats import get_format, number_format

register = template.Library()

MINUS = "\u2212"
PLACEHOLDER_ID = 987654321987
"""An id no page shows, reversed in place of the real ones (:func:`url_of`)."""


@dataclass(frozen=True)
class LanguageLink:
    code: str
    name: str
    url: str
    current: bool


@register.simple_tag(takes_context=True)
def language_links(context) -> list[LanguageLink]:
    """One link per language of ``settings.LANGUAGES`` to this page in that language (its
    query kept), or to that language's leaderboard when this page has no other language (a
    404, a 500 without a request)."""
    request = context.get("request")
    here = request.get_full_path() if request else None
    current = translation.get_language()
    links = []
    for code, name in settings.LANGUAGES:
        url = translate_url(here, code) if here else None
        if url is None or (url == here and code != current):
            with translation.override(code):
                url = reverse("pages:leaderboard")
        links.append(LanguageLink(code, name, url, code == current))
    return links


@cache
def _grouping(language: str) -> tuple[str, int | tuple]:
    """The locale's thousand separator and digit grouping."""
    return get_format("THOUSAND_SEPARATOR", language), get_format("NUMBER_GROUPING", language)


@register.filter
def grouped(value: int) -> str:
    """An integer with the locale's digit grouping: 12,345 in English, 12 345 in Russian; a
    negative one with U+2212 MINUS SIGN, as :func:`signed`."""
    separator, grouping = _grouping(translation.get_language())
    if grouping == 3:  # groups of three (English, Russian): cheap enough for long tables
        text = f"{value:,}".replace(",", separator)
    else:
        text = number_format(value, force_grouping=True)
    return MINUS + text[1:] if value < 0 else text


@register.filter
def signed(value: int) -> str:
    """A change of cups with its sign (+5, 0, and U+2212 MINUS SIGN before a loss), grouped as
    :func:`grouped`."""
    sign = "+" if value > 0 else MINUS if value < 0 else ""
    return sign + grouped(abs(value))


@cache
def _url_around_id(name: str, language: str, urlconf: str | None) -> tuple[str, str]:
    """The URL of page ``name`` for the placeholder id, split where the id goes."""
    head, tail = reverse(name, urlconf, args=[PLACEHOLDER_ID]).split(str(PLACEHOLDER_ID))
    return head, tail


@register.filter
def url_of(pk: int, name: str) -> str:
    """``{% url name pk %}`` for a page whose one argument is an id (``pages:player``,
    ``pages:match``), at a fraction of its cost in a long list: the URL is reversed once per
    language, with a placeholder id, and the id put in its place."""
    head, tail = _url_around_id(name, translation.get_language(), get_urlconf())
    return f"{head}{pk}{tail}"

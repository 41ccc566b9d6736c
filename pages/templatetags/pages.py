"""Template helpers of the players' pages: the language switch and numbers in the reader's
locale."""

from dataclasses import dataclass

from django import template
from django.conf import settings
from django.urls import reverse, translate_url
from django.utils import translation
from django.utils.formats import number_format

register = template.Library()

MINUS = "\u2212"


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


@register.filter
def grouped(value: int) -> str:
    """An integer with the locale's digit grouping: 12,345 in English, 12 345 in Russian."""
    return number_format(value, force_grouping=True)


@register.filter
def signed(value: int) -> str:
    """A change of cups with its sign (+5, 0, and U+2212 MINUS SIGN before a loss), grouped as
    :func:`grouped`."""
    sign = "+" if value > 0 else MINUS if value < 0 else ""
    return sign + grouped(abs(value))

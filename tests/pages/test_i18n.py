"""The pages in English and Russian (API.md "Players' pages"): ``/`` picks the language from
``Accept-Language``, every page links to itself in the other language, numbers, dates and
plurals follow the reader's language, and the committed catalog is the compiled ``.po``. The
API stays in one language whatever the client asks."""

import gettext
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
import time_machine

from stats.models import PlayerStats
from tests.api_steps import ids_of, match_play, round_body
from tests.pages.html import text_of

CATALOG = Path(__file__).resolve().parents[2] / "locale" / "ru" / "LC_MESSAGES"


@pytest.mark.parametrize(
    ("accept", "language"),
    [("ru", "ru"), ("ru-RU,ru;q=0.9,en;q=0.8", "ru"), ("en-US,en;q=0.9", "en"), ("de", "en")],
)
def test_the_root_redirects_to_the_language_of_accept_language(client, accept, language):
    response = client.get("/", headers={"accept-language": accept})
    assert response.status_code == 302
    assert response["Location"] == f"/{language}/"


def test_the_root_without_accept_language_is_english(client):
    assert client.get("/")["Location"] == "/en/"


@pytest.mark.django_db
def test_a_page_without_its_prefix_redirects_to_it(client, cast):
    response = client.get(f"/players/{cast[0].id}/", headers={"accept-language": "ru"})
    assert response["Location"] == f"/ru/players/{cast[0].id}/"


@pytest.mark.django_db
def test_the_language_switch_links_to_the_same_page_and_query(client, cast):
    html = client.get(f"/en/players/{cast[0].id}/?mode=room&result=won").content.decode()
    assert '<html lang="en">' in html
    assert (
        f'<a href="/ru/players/{cast[0].id}/?mode=room&amp;result=won" hreflang="ru" lang="ru">'
        "Русский</a>" in html
    )
    assert 'hreflang="en" lang="en" aria-current="page">English</a>' in html
    assert '<html lang="ru">' in client.get(f"/ru/players/{cast[0].id}/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("called", "russian"),
    [
        (1, "Бавян объявляли 1 раз, удачно 1"),
        (2, "Бавян объявляли 2 раза, удачно 1"),
        (5, "Бавян объявляли 5 раз, удачно 1"),
        (11, "Бавян объявляли 11 раз, удачно 1"),
        (22, "Бавян объявляли 22 раза, удачно 1"),
    ],
)
def test_the_bavan_line_takes_the_russian_plural_forms(client, cast, called, russian):
    PlayerStats.objects.update_or_create(
        player=cast[0], defaults=dict(bavan_called=called, bavan_made=1)
    )
    assert russian in text_of(client.get(f"/ru/players/{cast[0].id}/").content)
    english = "1 time" if called == 1 else f"{called} times"
    assert f"Bavan called {english}, made 1" in text_of(
        client.get(f"/en/players/{cast[0].id}/").content
    )


@pytest.mark.django_db
def test_numbers_and_dates_are_in_the_readers_locale(client, service, cast):
    with time_machine.travel(datetime(2026, 3, 5, 12, 0, tzinfo=UTC), tick=False):
        match_id = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    PlayerStats.objects.update_or_create(player=cast[0], defaults=dict(rounds_played=12345))

    assert "Rounds played 12,345" in text_of(client.get(f"/en/players/{cast[0].id}/").content)
    assert "Сыграно партий 12\xa0345" in text_of(client.get(f"/ru/players/{cast[0].id}/").content)
    assert "Started March 5, 2026, noon" in text_of(client.get(f"/en/matches/{match_id}/").content)
    assert "Начат 5 марта 2026" in text_of(client.get(f"/ru/matches/{match_id}/").content)


@pytest.mark.django_db
def test_the_api_answers_in_one_language_whatever_the_client_asks(service):
    response = service.client.post(
        "/api/v1/players/", {}, format="json", headers={"accept-language": "ru"}
    )
    assert response.status_code == 400
    assert response.json() == {"username": ["This field is required."]}
    assert "Content-Language" not in response


def catalog(path: Path) -> dict:
    with path.open("rb") as compiled:
        # The parsed messages: typeshed leaves out this attribute of the class.
        return gettext.GNUTranslations(compiled)._catalog  # type: ignore[attr-defined]


@pytest.mark.gettext
def test_the_committed_catalog_is_the_compiled_po(tmp_path):
    compiled = tmp_path / "django.mo"
    po = CATALOG / "django.po"
    subprocess.run(["msgfmt", "--check", "-o", str(compiled), str(po)], check=True)
    assert catalog(CATALOG / "django.mo") == catalog(compiled)

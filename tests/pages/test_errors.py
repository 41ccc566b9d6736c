"""The pages' error pages, in the reader's language, while the API keeps its JSON answers
(API.md "Conventions": every answer under /api/ is JSON)."""

import pytest
from django.test import Client

from pages import views
from stats import views as stats_views
from tests.pages.html import text_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("path", "title"),
    [
        ("/en/nowhere/", "Page not found"),
        ("/ru/nowhere/", "Страница не найдена"),
        ("/ru/players/999/", "Страница не найдена"),
        ("/en/matches/999/", "Page not found"),
    ],
)
def test_a_missing_page_is_a_404_page_in_its_language(client, path, title):
    response = client.get(path)
    assert response.status_code == 404
    assert f"<h1>{title}</h1>" in response.content.decode()
    assert 'href="/' + path[1:3] + '/"' in response.content.decode()


@pytest.mark.parametrize("path", ["/api/v1/nowhere/", "/api/v1/matches/999/"])
def test_the_api_keeps_its_json_404(client, path):
    response = client.get(path, headers={"accept-language": "ru"})
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "detail" in response.json()


def broken(*args, **kwargs):
    raise RuntimeError("the database is away")


def test_a_failing_page_is_a_500_page_in_its_language(cast, monkeypatch):
    monkeypatch.setattr(views, "player_stats", broken)
    response = Client(raise_request_exception=False).get(f"/ru/players/{cast[0].id}/")
    assert response.status_code == 500
    assert "Ошибка сервера" in text_of(response.content)
    assert '<html lang="ru">' in response.content.decode()


def test_a_failing_api_read_is_a_json_500(cast, monkeypatch):
    monkeypatch.setattr(stats_views, "player_stats", broken)
    response = Client(raise_request_exception=False).get(f"/api/v1/players/{cast[0].id}/stats/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert list(response.json()) == ["detail"]

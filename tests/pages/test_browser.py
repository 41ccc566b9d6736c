"""The players' pages in a real browser (API.md "Players' pages"): every page in English and
Russian, the history's filters and pages, the cups chart (Chart.js), the language switch, and
a live Bavan vote changing on the page as it is cast (KORT_RULES §4). No page breaks the
Content-Security-Policy: the browser's console holds no violation after any test."""

import pytest
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.wait import WebDriverWait

from pages import views
from players.services import player_token
from tests.api_steps import (
    ids_of,
    match_play,
    match_start,
    player_read,
    round_body,
    rounds_report,
)
from tests.pages.ladder import board_players, season_stats

pytestmark = pytest.mark.browser

BAVAN_MADE = [round_body(0, 13, 0, "go")]
BAVAN_FAILED = [round_body(0, 9, 1, "go")]
ROOM_KORTS = [round_body(0, 7, 0, "stop"), round_body(2, 7, 0, "stop")]  # A 10 of 7
WAIT_SECONDS = 30  # generous: CI machines may be busy
MATCH_HEADING = "Amir & Cyrus 10 : 0 Bita & Dara"  # the teams and the wins of BAVAN_MADE
CHART_POINTS = "return Chart.getChart('cups-chart').data.datasets[0].data.length"


@pytest.fixture
def ladder(service, cast):
    """Team A (Amir, Cyrus) made a Bavan in one ranked match and failed one in another; a room
    match; and players enough for two pages of the leaderboard."""
    seats = ids_of(cast)
    matches = [match_play(service, seats, rounds) for rounds in (BAVAN_MADE, BAVAN_FAILED)]
    matches.append(match_play(service, seats, ROOM_KORTS, mode="room"))
    season_stats(board_players(views.LEADERBOARD_PAGE_SIZE))
    return matches


@pytest.fixture(autouse=True)
def no_policy_violations(browser):
    """After each test, the browser's console holds no Content-Security-Policy violation (the
    pages run no inline script or style; kort_site.settings)."""
    browser.get_log("browser")  # what earlier tests left
    yield
    violations = [
        entry["message"]
        for entry in browser.get_log("browser")
        if "Content Security Policy" in entry["message"]
    ]
    assert violations == []


def open_page(browser, live_server, path: str) -> None:
    browser.get(f"{live_server.url}{path}")


def wait_for_text(browser, text: str, css: str = "main") -> None:
    # The element may belong to the page being left: read it again until the new one holds it.
    stale = (NoSuchElementException, StaleElementReferenceException)
    WebDriverWait(browser, WAIT_SECONDS, ignored_exceptions=stale).until(
        lambda driver: text in driver.find_element(By.CSS_SELECTOR, css).text
    )


def lang_and_heading(browser) -> tuple[str, str]:
    html = browser.find_element(By.TAG_NAME, "html")
    return html.get_attribute("lang"), browser.find_element(By.TAG_NAME, "h1").text


@pytest.mark.parametrize(
    ("lang", "headings"),
    [
        ("en", ["Leaderboard", "Amir", MATCH_HEADING, "Season 1", "Page not found"]),
        ("ru", ["Таблица лидеров", "Amir", MATCH_HEADING, "Сезон 1", "Страница не найдена"]),
    ],
)
def test_every_page_in_both_languages(
    browser, live_server, screenshot, cast, ladder, lang, headings
):
    pages = {
        "leaderboard": f"/{lang}/?page=2",
        "player": f"/{lang}/players/{cast[0].id}/",
        "match": f"/{lang}/matches/{ladder[0]}/",
        "season": f"/{lang}/seasons/1/",
        "not-found": f"/{lang}/players/999999/",
    }
    for (name, path), heading in zip(pages.items(), headings, strict=True):
        open_page(browser, live_server, path)
        assert lang_and_heading(browser) == (lang, heading.format(ladder[0]))
        screenshot(f"{name}-{lang}")


def test_the_admin_and_the_api_docs_run_under_the_policy(browser, live_server, staff):
    open_page(browser, live_server, "/admin/login/")
    assert browser.find_element(By.ID, "id_username").is_displayed()
    open_page(browser, live_server, "/api/docs/")
    wait_for_text(browser, "KORT Ladder API", css="body")


def outcome_counts(browser) -> list[list[str]]:
    rows = browser.find_elements(By.CSS_SELECTOR, "#outcomes tbody tr")
    return [[cell.text for cell in row.find_elements(By.CSS_SELECTOR, "td")] for row in rows]


def test_the_bavan_line_and_the_chart(browser, live_server, screenshot, api, cast, ladder):
    open_page(browser, live_server, f"/en/players/{cast[0].id}/")
    assert "Bavan called 2 times, made 1" in browser.find_element(By.TAG_NAME, "main").text
    outcomes = player_read(api, cast[0].id, "stats/")["outcomes"]
    assert outcome_counts(browser) == [
        [str(counts["team"]), str(counts["opponents"])] for counts in outcomes.values()
    ]
    WebDriverWait(browser, WAIT_SECONDS).until(
        lambda driver: driver.execute_script(
            "return window.Chart !== undefined && Chart.getChart('cups-chart') !== undefined"
        )
    )
    assert browser.execute_script(CHART_POINTS) == 2  # the two ranked matches
    assert len(browser.find_elements(By.CSS_SELECTOR, "#ledger tbody tr")) == 2

    open_page(browser, live_server, f"/ru/players/{cast[0].id}/")
    assert "Бавян объявляли 2 раза, удачно 1" in browser.find_element(By.TAG_NAME, "main").text
    screenshot("player-chart-ru")


def history(browser) -> list[str]:
    return [row.text for row in browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")]


def test_the_history_filters_and_pages(browser, live_server, cast, ladder, monkeypatch):
    monkeypatch.setattr(views, "HISTORY_PAGE_SIZE", 1)
    open_page(browser, live_server, f"/en/players/{cast[1].id}/")
    Select(browser.find_element(By.ID, "id_mode")).select_by_visible_text("Ranked")
    Select(browser.find_element(By.ID, "id_result")).select_by_visible_text("Won")
    browser.find_element(By.CSS_SELECTOR, "form.filters button").click()
    WebDriverWait(browser, WAIT_SECONDS).until(lambda driver: "result=won" in driver.current_url)
    assert "mode=ranked" in browser.current_url
    assert len(history(browser)) == 1  # Bita's team won the match of the failed Bavan
    assert "Won" in history(browser)[0]

    Select(browser.find_element(By.ID, "id_mode")).select_by_visible_text("All")
    Select(browser.find_element(By.ID, "id_result")).select_by_visible_text("Lost")
    browser.find_element(By.CSS_SELECTOR, "form.filters button").click()
    WebDriverWait(browser, WAIT_SECONDS).until(lambda driver: "result=lost" in driver.current_url)
    assert "Room" in history(browser)[0]  # lost: the room match, then the Bavan made
    assert not browser.find_elements(By.CSS_SELECTOR, "nav.pagination a[rel=prev]")
    browser.find_element(By.LINK_TEXT, "Older").click()
    WebDriverWait(browser, WAIT_SECONDS).until(lambda driver: "cursor=" in driver.current_url)
    assert "result=lost" in browser.current_url
    assert "Ranked" in history(browser)[0]
    assert "Lost" in history(browser)[0]
    assert not browser.find_elements(By.CSS_SELECTOR, "nav.pagination a[rel=next]")

    older = browser.current_url
    browser.find_element(By.LINK_TEXT, "Newer").click()
    WebDriverWait(browser, WAIT_SECONDS).until(lambda driver: driver.current_url != older)
    assert "result=lost" in browser.current_url
    assert "Room" in history(browser)[0]
    assert "Lost" in history(browser)[0]
    assert not browser.find_elements(By.CSS_SELECTOR, "nav.pagination a[rel=prev]")


def test_the_leaderboard_pages_and_search(browser, live_server, screenshot, cast, ladder):
    open_page(browser, live_server, "/en/")
    browser.find_element(By.CSS_SELECTOR, "nav.pagination a[rel=next]").click()
    WebDriverWait(browser, WAIT_SECONDS).until(lambda driver: "page=2" in driver.current_url)
    first_rank = browser.find_element(By.CSS_SELECTOR, "#board tbody tr td").text
    assert first_rank == str(views.LEADERBOARD_PAGE_SIZE + 1)

    search = browser.find_element(By.ID, "id_q")
    search.clear()
    search.send_keys("CYRUS")
    search.submit()
    wait_for_text(browser, "is number")
    found = browser.find_element(By.CSS_SELECTOR, "#board tr.found")
    assert "Cyrus" in found.text
    screenshot("leaderboard-search-en")


def test_the_language_switch(browser, live_server, cast, ladder):
    open_page(browser, live_server, f"/en/players/{cast[0].id}/?mode=ranked")
    browser.find_element(By.LINK_TEXT, "Русский").click()
    WebDriverWait(browser, WAIT_SECONDS).until(lambda driver: "/ru/" in driver.current_url)
    assert browser.current_url.endswith(f"/ru/players/{cast[0].id}/?mode=ranked")
    assert lang_and_heading(browser) == ("ru", "Amir")
    assert "Мои игры" in browser.find_element(By.TAG_NAME, "main").text

    browser.find_element(By.LINK_TEXT, "English").click()
    WebDriverWait(browser, WAIT_SECONDS).until(lambda driver: "/en/" in driver.current_url)
    assert lang_and_heading(browser) == ("en", "Amir")


def test_the_live_vote_changes_on_the_page(browser, live_server, screenshot, api, service, cast):
    match_id = match_start(service, ids_of(cast), mode="room")
    opened = rounds_report(service, match_id, [round_body(0, 7, 0, "vote")])
    assert opened[0]["vote"]["status"] == "open"
    open_page(browser, live_server, f"/en/matches/{match_id}/")
    assert browser.find_element(By.ID, "vote-state").text == "Deciding: Bavan or stop"
    screenshot("match-vote-open-en")

    voting = f"/api/v1/matches/{match_id}/rounds/1/vote/"
    amir = api.as_player(player_token(cast[0]).key)
    assert amir.post(voting, {"vote": "bavan"}).status_code == 201
    wait_for_text(browser, "Bavan!", "#votes tbody tr:first-child")

    cyrus = api.as_player(player_token(cast[2]).key)
    assert cyrus.post(voting, {"vote": "stop"}).status_code == 201
    wait_for_text(browser, "No Bavan: the Kort counts", "#vote-state")
    assert "Kort" in browser.find_element(By.CSS_SELECTOR, "#rounds tbody").text
    assert browser.find_element(By.ID, "match").get_attribute("data-refresh-seconds") is None
    screenshot("match-vote-refused-en")

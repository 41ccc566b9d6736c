"""The players' pages in Chromium as players use them, in English and Russian (API.md
"Players' pages"): a match that explains its cups and its void, "My games" after a season's
end and a void (the cups table by kind, the chart on a time axis, streaks, partners and
opponents, the figures per mode, the history's void rows), the search by the start of a
name in any script, a bot's page, and every page at 360 px without sideways scroll, in the
dark scheme, with its title, description and icon, and the static files as production serves
them (hashed names, compressed, cached a year). Every figure is checked against the API's
answer. Screenshots go to ``artifacts/screenshots/``."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.test import modify_settings, override_settings
from django.test.testcases import LiveServerThread
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from pages import views
from players.services import player_create
from tests.api_steps import (
    ids_of,
    match_play,
    match_read,
    match_start,
    player_read,
    round_body,
    rounds_report,
)
from tests.matches.play_records import bot_record, played
from tests.pages.html import number
from tests.ranking.season_steps import THREE_ONE, season_end

pytestmark = pytest.mark.browser

WAIT_SECONDS = 30
NARROW = 360
LANGS = ("en", "ru")
MINUS = "\u2212"
VOID_REASON = "a cheater at the table"
SUITS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
NOT_KNOWN = "\u2014"  # an em dash, named for screen readers
HYPHEN_BEFORE_DIGIT = re.compile(r"(?<![\w.])-\d")
"""A negative number written with a hyphen-minus instead of U+2212."""
DATES = {
    "en": re.compile(
        r"^[A-Z][a-z]+\.? \d{1,2}, \d{4}(, (\d{1,2}(:\d\d)? [ap]\.m\.|noon|midnight))?$"
    ),
    # the day, the month's name (Cyrillic small letters), the year and its abbreviation, the time
    "ru": re.compile("^\\d{1,2} [\u0430-\u044f]+ \\d{4} \u0433\\.(, \\d{1,2}:\\d\\d)?$"),
}
"""The one way each language writes a date (and a time of day) on the pages."""


def signed(value: int) -> str:
    return "+" + str(value) if value > 0 else str(value).replace("-", MINUS)


def open_page(browser, live_server, path: str) -> None:
    browser.get(f"{live_server.url}{path}")


def texts(browser, css: str) -> list[str]:
    return [element.text for element in browser.find_elements(By.CSS_SELECTOR, css)]


def cells(browser, table_id: str) -> list[list[str]]:
    rows = browser.find_elements(By.CSS_SELECTOR, f"#{table_id} tbody tr")
    return [[cell.text for cell in row.find_elements(By.CSS_SELECTOR, "th, td")] for row in rows]


def fits(browser, width: int = NARROW) -> tuple[int, int]:
    """The page's scroll width and the window's inner width at ``width`` px (a phone's): the
    page scrolls sideways when the first is the larger."""
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": True},
    )
    try:
        return browser.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth]"
        )
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def assert_no_sideways_scroll(browser) -> None:
    scroll, inner = fits(browser)
    assert scroll <= inner, f"{browser.current_url}: {scroll} px wide in {inner} px"


@pytest.fixture
def story(service, cast):
    """Bita & Dara beat Cyrus & Iman 3:1 (ranked) in season 1; the season ends; in season 2
    Amir & Cyrus beat Bita & Dara with a Kort, a match then voided, Bita & Dara beat Cyrus &
    Iman 3:1 again, and win a room match against Iman and Rook, a bot."""
    amir, bita, cyrus, dara = cast
    iman = player_create(username="iman", display_name="Iman")
    rook = player_create(username="rook", display_name="Rook", is_bot=True)
    four = ids_of([bita, cyrus, dara, iman])
    first = match_play(service, four, THREE_ONE)
    season_end()
    voided = match_play(service, ids_of(cast), [round_body(0, 7, 0, "stop")])
    call_command("void_match", str(voided), "--reason", VOID_REASON)
    match_play(service, four, THREE_ONE)
    at_kort = [round_body(1, 7, 0, "stop")]
    room = match_play(
        service, ids_of([bita, rook, dara, iman]), at_kort, mode="room", first_trump_seat=1
    )
    return {
        "first": first,
        "voided": voided,
        "room": room,
        "amir": amir.id,
        "bita": bita.id,
        "iman": iman.id,
        "rook": rook.id,
    }


def assert_rounds_are_the_apis(browser, answer: dict, lang: str) -> None:
    """Each round's trump caller (seat and player, linked) and trump suit, or a dash named
    "not known" when no play record says it, as the API's match read has them."""
    rows = browser.find_elements(By.CSS_SELECTOR, "#rounds tbody tr")
    seat_word = {"en": "seat", "ru": "место"}[lang]
    for row, round_ in zip(rows, answer["rounds"], strict=True):
        caller = row.find_element(By.CSS_SELECTOR, "td:nth-of-type(1)")
        assert caller.text.startswith(f"{seat_word} {round_['trump_seat']}, ")
        player = answer["seats"][round_["trump_seat"]]
        href = caller.find_element(By.TAG_NAME, "a").get_attribute("href")
        assert href.endswith(f"/{lang}/players/{player}/")
        trump = row.find_element(By.CSS_SELECTOR, "td:last-child")
        suit = (round_["play"] or {}).get("trump_suit")
        if suit is None:
            assert trump.text == NOT_KNOWN
            named = trump.find_element(By.TAG_NAME, "span").get_attribute("aria-label")
            assert named == {"en": "not known", "ru": "неизвестно"}[lang]
        else:
            assert trump.text == SUITS[suit]


@pytest.mark.parametrize("lang", LANGS)
def test_the_match_page_explains_its_cups_and_its_void(
    browser, live_server, screenshot, api, service, cast, story, lang
):
    answer = match_read(api, story["first"])
    open_page(browser, live_server, f"/{lang}/matches/{story['first']}/")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Bita & Dara 3 : 1 Cyrus & Iman"
    assert_rounds_are_the_apis(browser, answer, lang)  # reported in summary: no suit known
    breakdown = cells(browser, "breakdown")
    for row, team in zip(breakdown, ("A", "B"), strict=True):
        figures = answer["cups_breakdown"][team]
        assert row[1].split() == [signed(value) for value in figures["rounds"]]
        assert row[2:] == [
            signed(figures[name]) for name in ("match_bonus", "sweep_bonus", "total")
        ]
    season = {"en": "Season 1", "ru": "Сезон 1"}[lang]
    assert (
        browser.find_element(By.LINK_TEXT, season)
        .get_attribute("href")
        .endswith(f"/{lang}/seasons/1/")
    )
    assert_no_sideways_scroll(browser)
    screenshot(f"match-breakdown-{lang}")

    voided = match_read(api, story["voided"])
    assert voided["status"] == "void"
    open_page(browser, live_server, f"/{lang}/matches/{story['voided']}/")
    notice = browser.find_element(By.ID, "void").text
    assert VOID_REASON in notice
    assert {"en": "Voided on", "ru": "Аннулирован"}[lang] in notice
    when = browser.find_element(By.CSS_SELECTOR, "#void time")
    shown_at = datetime.fromisoformat(when.get_attribute("datetime"))
    assert shown_at == datetime.fromisoformat(voided["voided_at"].replace("Z", "+00:00"))
    assert DATES[lang].match(when.text), when.text
    assert_in_the_readers_language(browser, lang)
    assert_no_sideways_scroll(browser)
    screenshot(f"match-void-{lang}")

    recorded = match_start(service, ids_of(cast), mode="room")
    rounds_report(service, recorded, [played(0, bot_record(0, 7, 3))])
    open_page(browser, live_server, f"/{lang}/matches/{recorded}/")
    assert_rounds_are_the_apis(browser, match_read(api, recorded), lang)  # its record: the suit


VOTE_SETTLED = {
    "en": ("BAVAN! Playing to 13:0", ["Silent: counted as agreement", "Bavan! (bot)"]),
    "ru": (
        "БАВЯН! Игра продолжается до 13:0",
        ["Промолчал: засчитано как согласие", "Бавян! (бот)"],
    ),
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_settled_vote_shows_the_bots_and_the_silent_seats_votes(
    browser, live_server, screenshot, api, service, cast, lang
):
    """Team A reached 7:0 a minute ago; Cyrus left, so a bot voted for his seat, and Amir said
    nothing until the deadline: his silence agreed with the bot's Bavan (KORT_RULES §4)."""
    with time_machine.travel(timezone.now() - timedelta(minutes=1), tick=False):
        match_id = match_start(service, ids_of(cast), mode="room")
        rounds_report(service, match_id, [round_body(0, 7, 0, "vote")])
        assert service.post(f"/api/v1/matches/{match_id}/seats/2/leave/").status_code == 200
    open_page(browser, live_server, f"/{lang}/matches/{match_id}/")  # the read settles it
    voting = api.get(f"/api/v1/matches/{match_id}/rounds/1/vote/").data
    assert voting["status"] == "go"
    assert {
        seat: (cast_vote["vote"], cast_vote["bot"]) for seat, cast_vote in voting["votes"].items()
    } == {"2": ("bavan", True)}
    state, votes = VOTE_SETTLED[lang]
    assert browser.find_element(By.ID, "vote-state").text == state
    assert [row[:2] for row in cells(browser, "votes")] == [["0", "Amir"], ["2", "Cyrus"]]
    assert [row[2] for row in cells(browser, "votes")] == votes
    assert browser.find_element(By.ID, "match").get_attribute("data-refresh-seconds") is None
    assert_no_sideways_scroll(browser)
    screenshot(f"match-vote-settled-{lang}")


KIND_WORDS = {
    "en": {"match": "Match {}", "void": "Void of match {}", "season_reset": "Reset: Season {}"},
    "ru": {
        "match": "Матч {}",
        "void": "Аннулирование матча {}",
        "season_reset": "Начался Сезон {}",
    },
}


@pytest.mark.parametrize("lang", LANGS)
def test_my_games_after_a_season_end_and_a_void(browser, live_server, screenshot, api, story, lang):
    bita = story["bita"]
    open_page(browser, live_server, f"/{lang}/players/{bita}/")
    ledger = player_read(api, bita, "cups/")["results"]
    rows = cells(browser, "ledger")
    assert len(rows) == len(ledger) == 5  # 3:1, the reset, the Kort, its void, 3:1
    for row, entry in zip(rows, ledger, strict=True):  # newest first, as the API
        word = KIND_WORDS[lang][entry["kind"]]
        assert row[1].startswith(word.format(entry["match"] or entry["season"])), row
        assert "None" not in row[1]
        assert [number(row[2]), number(row[3])] == [entry["delta"], entry["cups_after"]]

    WebDriverWait(browser, WAIT_SECONDS).until(
        lambda driver: driver.execute_script(
            "return window.Chart !== undefined && Chart.getChart('cups-chart') !== undefined"
        )
    )
    chart = browser.execute_script(
        "var c = Chart.getChart('cups-chart'); return [c.options.scales.x.type,"
        " c.data.datasets[0].data.map(function (p) { return p.y; })]"
    )
    assert chart == ["linear", [entry["cups_after"] for entry in reversed(ledger)]]
    marks = browser.execute_script(
        "return JSON.parse(document.getElementById('cups-data').textContent).seasons"
    )
    assert [mark["label"] for mark in marks] == [{"en": "Season 2", "ru": "Сезон 2"}[lang]]
    assert browser.find_element(By.ID, "chart-summary").text  # the chart in words

    stats = player_read(api, bita, "stats/")
    cups = texts(browser, "section[aria-labelledby=cups-heading] dl.figures dd")
    assert [number(value) for value in cups] == [
        stats["cups"],
        stats["best_cups"],
        player_read(api, bita)["rank"],
    ]
    games = texts(browser, "section[aria-labelledby=games-heading] dl.figures:not(#streaks) dd")
    assert [number(value) for value in games] == [
        stats[name]
        for name in (
            "matches_played",
            "matches_won",
            "matches_lost",
            "rounds_played",
            "rounds_won",
        )
    ]
    streaks = [number(value) for value in texts(browser, "#streaks dd")]
    assert streaks == [
        stats["streaks"]["win"]["current"],
        stats["streaks"]["win"]["best"],
        stats["streaks"]["loss"]["current"],
        stats["streaks"]["loss"]["best"],
    ]
    for side in ("partners", "opponents"):
        table = player_read(api, bita, f"{side}/")["results"][:10]
        shown = cells(browser, side)
        assert [row[0].split(" · ")[0] for row in shown] == [
            row["player"]["display_name"] for row in table
        ]
        assert [[number(cell) for cell in row[1:]] for row in shown] == [
            [row["matches"], row["won"], row["cups"]] for row in table
        ]
        links = browser.find_elements(By.CSS_SELECTOR, f"#{side} tbody th a")
        assert [link.get_attribute("href").rsplit("/", 2)[-2] for link in links] == [
            str(row["player"]["id"]) for row in table
        ]
        together = {"partners": "with", "opponents": "against"}[side]
        for row in table:  # each pair's figures, as the API's versus read has them
            versus = player_read(api, bita, f"versus/{row['player']['id']}/")[together]
            assert [versus["matches"], versus["won"]] == [row["matches"], row["won"]]
    modes = cells(browser, "modes")
    for row, mode in zip(modes, ("ranked", "room"), strict=True):
        figures = player_read(api, bita, f"stats/?mode={mode}")
        assert [number(cell) for cell in row[1:4]] == [
            figures["matches_played"],
            figures["matches_won"],
            figures["matches_lost"],
        ]
        assert [number(cell) for cell in row[4].split("/")] == [
            figures["rounds_won"],
            figures["rounds_played"],
        ]
        assert number(row[5]) == figures["streaks"]["win"]["best"]
    seasons = player_read(api, bita, "seasons/")["results"]
    season_word = {"en": "Season {}", "ru": "Сезон {}"}[lang]
    shown = cells(browser, "seasons")
    assert [row[0] for row in shown] == [season_word.format(row["season"]) for row in seasons]
    for row, season in zip(shown, seasons, strict=True):  # a season's ranked figures
        figures = player_read(api, bita, f"stats/?mode=ranked&season={season['season']}")
        assert [number(cell) for cell in row[1:]] == [
            season["rank"],
            figures["cups"],
            figures["best_cups"],
            figures["matches_played"],
            figures["matches_won"],
        ]

    history = player_read(api, bita, "matches/")["results"]
    void = {"en": "Void", "ru": "Аннулирован"}[lang]
    void_rows = [row for row in cells(browser, "history") if void in row]
    assert len(void_rows) == [row["status"] for row in history].count("void") == 1
    assert_no_sideways_scroll(browser)
    screenshot(f"player-season-void-{lang}")

    won = player_read(api, bita, "matches/?result=won")["results"]
    lost = player_read(api, bita, "matches/?result=lost")["results"]
    assert all(row["status"] != "void" for row in won + lost)
    for result, listed in (("won", won), ("lost", lost)):
        open_page(browser, live_server, f"/{lang}/players/{bita}/?result={result}")
        links = browser.find_elements(By.CSS_SELECTOR, "#history tbody th a")
        assert [link.get_attribute("href").rsplit("/", 2)[-2] for link in links] == [
            str(row["id"]) for row in listed
        ]

    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:  # without JavaScript: the chart in words, a note, and the table of the same changes
        open_page(browser, live_server, f"/{lang}/players/{bita}/")
        note = browser.find_element(By.CSS_SELECTOR, ".chart-figure p.note")
        assert note.is_displayed()
        assert {"en": "needs JavaScript", "ru": "нужен JavaScript"}[lang] in note.text
        assert browser.find_element(By.ID, "chart-summary").is_displayed()
        assert len(cells(browser, "ledger")) == len(ledger)
        screenshot(f"player-no-script-{lang}", desktop=False)
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


@pytest.mark.parametrize("lang", LANGS)
def test_the_search_by_the_start_of_a_name(browser, live_server, screenshot, story, lang):
    player_create(username="elka", display_name="Ёлка")
    player_create(username="elochka", display_name="Ёлочка")
    open_page(browser, live_server, f"/{lang}/?q=ёЛК")  # one name begins so: that player
    assert "Ёлка" in browser.find_element(By.CSS_SELECTOR, ".notice").text
    open_page(browser, live_server, f"/{lang}/?q=ЁЛ")  # two: both suggested
    assert texts(browser, "#suggestions a:first-child") == ["Ёлка", "Ёлочка"]
    open_page(browser, live_server, f"/{lang}/?q=bIt")
    assert "Bita" in browser.find_element(By.CSS_SELECTOR, "#board tr.found").text
    title = {"en": "“bIt” on the leaderboard", "ru": "«bIt» в таблице лидеров"}[lang]
    assert browser.title.startswith(title)
    open_page(browser, live_server, f"/{lang}/?q=IMAN")  # an exact username: the row
    assert "Iman" in browser.find_element(By.CSS_SELECTOR, "#board tr.found").text
    assert_no_sideways_scroll(browser)
    screenshot(f"leaderboard-search-prefix-{lang}")


@pytest.mark.parametrize("lang", LANGS)
def test_a_bot_page_shows_its_matches_and_no_zeros(browser, live_server, screenshot, story, lang):
    open_page(browser, live_server, f"/{lang}/players/{story['rook']}/")
    main = browser.find_element(By.TAG_NAME, "main").text
    assert browser.find_element(By.TAG_NAME, "h1").text == "Rook"
    assert "(bot)" not in main
    assert not browser.find_elements(By.CSS_SELECTOR, "dl.figures")  # no figures of zeros
    assert len(cells(browser, "history")) == 1
    assert browser.find_element(By.ID, "off-board").text
    open_page(browser, live_server, f"/{lang}/players/{story['amir']}/")
    reason = browser.find_element(By.ID, "off-board").text  # Amir's match in season 2: void
    assert {"en": "Season 2", "ru": "Сезон 2"}[lang] in reason
    screenshot(f"player-bot-{lang}")


LABELS = "h2, caption, thead th, dt, label, button, nav.pagination a"
"""The elements that label the pages: headings, captions, columns, figures, form fields."""
CYRILLIC = re.compile("[\u0400-\u04ff]")
TITLES = {
    "en": {"board-page-2": "Leaderboard, page 2 · ", "history-older": "Bita: older matches · "},
    "ru": {
        "board-page-2": "Таблица лидеров, страница 2 · ",
        "history-older": "Bita: более ранние матчи · ",
    },
}


def assert_in_the_readers_language(browser, lang: str) -> None:
    """Every label in the page's language (in Russian, each has Cyrillic letters; in English,
    none), every date written the language's one way, and no negative number with a
    hyphen-minus (U+2212 MINUS SIGN instead)."""
    labels = [text for text in texts(browser, LABELS) if text]
    labels += [
        element.get_attribute("data-label")
        for element in browser.find_elements(By.CSS_SELECTOR, "main [data-label]")
    ]
    labels = [label for label in labels if any(letter.isalpha() for letter in label)]
    assert labels  # the page numbers left out
    if lang == "ru":
        assert [label for label in labels if not CYRILLIC.search(label)] == []
    else:
        assert [label for label in labels if CYRILLIC.search(label)] == []
    dates = texts(browser, "main time") + texts(browser, "#history tbody th a")
    assert [date for date in dates if not DATES[lang].match(date)] == []
    main = browser.find_element(By.TAG_NAME, "main").text
    assert HYPHEN_BEFORE_DIGIT.search(main) is None, browser.current_url


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_fits_a_phone_in_the_dark_with_its_title(
    browser, live_server, screenshot, story, lang, monkeypatch
):
    """The leaderboard (its second page), a season, My games, a page of older matches of
    its history, a room match and a ranked one: at 360 px, none scrolls sideways; each has
    its own title and description, the icon, the dark scheme, its labels and dates in the
    reader's language and the minus sign; a screenshot of each."""
    monkeypatch.setattr(views, "LEADERBOARD_PAGE_SIZE", 2)  # the board's 4 players: 2 pages
    monkeypatch.setattr(views, "HISTORY_PAGE_SIZE", 2)
    open_page(browser, live_server, f"/{lang}/players/{story['bita']}/")
    older = browser.find_element(By.CSS_SELECTOR, "nav.pagination a[rel=next]")
    pages = {
        "board-page-2": f"/{lang}/?page=2",
        "season": f"/{lang}/seasons/1/",
        "player": f"/{lang}/players/{story['bita']}/",
        "history-older": older.get_attribute("href").removeprefix(live_server.url),
        "match-room": f"/{lang}/matches/{story['room']}/",
        "match-ranked": f"/{lang}/matches/{story['first']}/",
    }
    titles, descriptions = set(), set()
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
    )
    try:
        for name, path in pages.items():
            open_page(browser, live_server, path)
            assert_no_sideways_scroll(browser)
            background = browser.execute_script(
                "return getComputedStyle(document.documentElement).backgroundColor"
            )
            assert background == "rgb(21, 23, 26)", path  # the dark scheme's paper
            description = browser.find_element(By.CSS_SELECTOR, "meta[name=description]")
            descriptions.add(description.get_attribute("content"))
            icon = browser.find_element(By.CSS_SELECTOR, "link[rel=icon]").get_attribute("href")
            assert (
                browser.execute_script(
                    "var r = new XMLHttpRequest(); r.open('GET', arguments[0], false); r.send();"
                    " return r.status",
                    icon,
                )
                == 200
            )
            if name in TITLES[lang]:
                assert browser.title.startswith(TITLES[lang][name])
            titles.add(browser.title)
            assert_in_the_readers_language(browser, lang)
            screenshot(f"{name}-dark-{lang}", desktop=False)
        assert MINUS in browser.find_element(By.ID, "breakdown").text  # the losers' cups
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    assert len(titles) == len(pages)  # a title per page
    assert len(descriptions) == len(pages) - 1  # My games and its older matches share one


def no_static_handler(handler):
    """The site's handler as it is: no handler before it answers ``/static/``."""
    return handler


@pytest.fixture
def production_static_server(collected, transactional_db):
    """A live server of its own that serves ``/static/`` as production does: WhiteNoise's
    middleware answers from the files ``collected`` (production's storage, in a temporary
    ``STATIC_ROOT``). pytest-django's ``live_server`` wraps the site in Django's
    ``StaticFilesHandler``, which answers ``/static/`` from the apps' folders under plain names
    before any middleware, and it starts once a session, when WhiteNoise has already scanned
    the default ``STATIC_ROOT``. Here the thread's static handler is no handler at all, and
    the thread starts under the collected files' settings, with debug off (no finders, no
    refresh: WhiteNoise reads ``STATIC_ROOT`` once, when the thread builds the middleware)."""
    with override_settings(DEBUG=False), modify_settings(ALLOWED_HOSTS={"append": "localhost"}):
        # The stubs ask for a handler class; the thread only calls it on the site's handler.
        thread = LiveServerThread("localhost", static_handler=no_static_handler)  # type: ignore[arg-type]
        thread.daemon = True
        thread.start()
        thread.is_ready.wait()
        if thread.error:
            raise thread.error
        try:
            yield f"http://localhost:{thread.port}"
        finally:
            thread.terminate()


YEAR = 365 * 24 * 3600
HASHED = re.compile(r"^/static/.+\.[0-9a-f]{12}\.\w+$")
"""A static file's path under its hashed name: 12 hex digits of its content before the
extension."""
STATIC_FILES = """
return Array.from(
  document.querySelectorAll('link[rel~=stylesheet], link[rel~=icon], script[src]'),
  function (element) { return new URL(element.href || element.src).pathname; }
).filter(function (path) { return path.startsWith('/static/'); });
"""
FETCHED = """
var done = arguments[arguments.length - 1];
Promise.all(arguments[0].map(function (path) {
  return fetch(path, {cache: 'no-store'}).then(function (response) {
    return [path, response.status, response.headers.get('content-encoding'),
            response.headers.get('cache-control')];
  });
})).then(done, function (error) { done(String(error)); });
"""
"""Each path fetched by the page itself (same origin: every header readable), past the
browser's cache: its status, ``Content-Encoding`` and ``Cache-Control``."""


@pytest.mark.parametrize("lang", LANGS)
def test_the_static_files_are_hashed_compressed_and_cached_for_a_year(
    browser, production_static_server, cast, finalized_ranked, lang
):
    """A player's page with the chart, its static files served as production serves them:
    every stylesheet, script and icon under its hashed name, compressed, cached a year."""
    browser.get(f"{production_static_server}/{lang}/players/{cast[0].id}/")  # won: a chart
    paths = browser.execute_script(STATIC_FILES)
    assert [path for path in paths if not HASHED.match(path)] == []
    plain = {re.sub(r"\.[0-9a-f]{12}\.", ".", path) for path in paths}
    assert plain >= {
        "/static/pages/site.css",
        "/static/pages/favicon.svg",
        "/static/pages/vendor/chart.js-4.6.1/chart.umd.min.js",
        "/static/pages/cups_chart.js",
    }
    answers = browser.execute_async_script(FETCHED, paths)
    assert isinstance(answers, list), answers
    for path, status, encoding, cache_control in answers:
        assert status == 200, path
        assert encoding in ("gzip", "br"), (path, encoding)
        max_age = re.search(r"max-age=(\d+)", cache_control or "")
        assert max_age is not None and int(max_age.group(1)) >= YEAR, (path, cache_control)
        assert "immutable" in cache_control, (path, cache_control)
    WebDriverWait(browser, WAIT_SECONDS).until(  # the vendored Chart.js ran: the chart drawn
        lambda driver: driver.execute_script(
            "return window.Chart !== undefined && Chart.getChart('cups-chart') !== undefined"
        )
    )

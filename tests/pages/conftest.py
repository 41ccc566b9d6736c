"""Fixtures of the pages' tests: the static files collected as production collects them, and
for the browser tests Debian's headless Chromium driven through its chromedriver and
screenshots of what it shows under ``artifacts/screenshots/``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

from conftest import PROGRAMS
from kort_site.settings import STORAGES

CHROMIUM, CHROMEDRIVER = PROGRAMS["browser"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
DESKTOP = (1280, 900)
PHONE = (360, 800)  # the narrowest width the pages are read at
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


@pytest.fixture(scope="session")
def _collected_once(tmp_path_factory) -> Path:
    """``collectstatic`` with production's ``STORAGES`` (hashed names, compressed copies) into
    a folder of its own, once a run: it takes seconds (the admin's files too)."""
    static_root = tmp_path_factory.mktemp("static-root")
    with override_settings(STATIC_ROOT=static_root, STORAGES=STORAGES):
        call_command("collectstatic", "--noinput", verbosity=0)
    return static_root


@pytest.fixture
def collected(_collected_once):
    """The static files as production collects them, with the settings that link and find
    them (``STATIC_ROOT``, production's ``STORAGES``) in force while the test runs."""
    with override_settings(STATIC_ROOT=_collected_once, STORAGES=STORAGES):
        yield _collected_once


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """A headless Chromium for every browser test of the run, with a fresh profile. The driver
    and the browser are the system's: Selenium Manager is kept offline and never fetches either."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SE_OFFLINE", "true")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
        options.add_argument(f"--window-size={DESKTOP[0]},{DESKTOP[1]}")
        # The console's messages, for the check that the pages break no Content-Security-Policy.
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def screenshot(browser):
    """``screenshot(name)``: save the whole page the browser shows, at a phone's and at a
    desktop's width, as ``artifacts/screenshots/<name>-phone.png`` and ``<name>-desktop.png``;
    ``screenshot(name, desktop=False)`` only at the phone's."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(name: str, *, desktop: bool = True) -> None:
        sizes = (("phone", PHONE), ("desktop", DESKTOP)) if desktop else (("phone", PHONE),)
        for size_name, (width, height) in sizes:
            metrics = {"width": width, "deviceScaleFactor": 1, "mobile": size_name == "phone"}
            browser.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride", {**metrics, "height": height}
            )
            length = browser.execute_script("return document.documentElement.scrollHeight")
            browser.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride", {**metrics, "height": max(height, length)}
            )
            browser.save_screenshot(os.fspath(SCREENSHOTS / f"{name}-{size_name}.png"))
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    return take

"""One running system for the end-to-end tests of a session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from tests.e2e.browser import browser
from tests.e2e.system import System, running_system


@pytest.fixture(scope="session")
def system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    state: Path = tmp_path_factory.mktemp("raffe-e2e")
    with running_system(
        state,
        RAFFE_RATE_PER_ADDRESS="2000",
        RAFFE_RATE_PER_TOKEN="2000",
        RAFFE_SSE_HEARTBEAT_S="1",
        RAFFE_CREATES_PER_HOUR="100000",
        RAFFE_JOINS_PER_ADDRESS="1000",
        RAFFE_REGISTRATIONS_PER_WINDOW="1000",
        RAFFE_SIGN_INS_PER_WINDOW="1000",
        RAFFE_PROVISIONAL_GAMES="1",
        RAFFE_QUICKPLAY_BOTS_AFTER_S="3",
        RAFFE_TURN_BASED_BOTS_AFTER_S="6",
        RAFFE_BOT_GAMES_PER_DAY="2",
    ) as s:
        yield s


@pytest.fixture
def http(system: System) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=system.base_url, timeout=20) as client:
        yield client


@pytest.fixture
def page(system: System) -> Iterator[WebDriver]:
    """A browser on the running system's lobby, closed after the test."""
    driver = browser()
    driver.get(system.base_url + "/")
    yield driver
    driver.quit()

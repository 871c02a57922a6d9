"""Accounts in a real browser (#26 items 1 and 2): a person creates an account and a
game in one browser, signs in from another (a fresh profile: no seat token there),
finds the game in their games and plays their seat from it; signing out everywhere
ends the first browser's session too. The account page passes axe-core."""

from __future__ import annotations

import secrets

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.e2e.browser import (
    accessibility_problems,
    browser,
    click,
    find,
    needs_chromium,
    status,
    wait_for,
)
from tests.e2e.system import System
from tests.e2e.test_browser import click_giraffometer, create_from_lobby, version_shown

pytestmark = needs_chromium


def fill(driver: WebDriver, css: str, text: str) -> None:
    field = find(driver, css)
    field.clear()
    field.send_keys(text)


def header_name(driver: WebDriver) -> str:
    return str(driver.execute_script("return document.getElementById('account-link').textContent"))


def test_a_player_signs_in_on_another_browser_and_plays_their_seat(system: System) -> None:
    name, password = f"Ines {secrets.token_hex(3)}", "ines's password"
    first, second = browser(), browser()
    try:
        first.get(system.base_url + "/#/account")
        find(first, "#register")
        assert not accessibility_problems(first), "the sign-in page"
        fill(first, "#register-name", name)
        fill(first, "#register-password", password)
        click(first, "#register button[type=submit]")
        wait_for(lambda: header_name(first) == name, message="not signed in")
        first.get(system.base_url + "/#/")
        game_id = create_from_lobby(first, "giraffometer", ["you", "bot"])
        wait_for(lambda: "Your move" in status(first) or "vote" in status(first).lower())
        # The other browser holds no seat token: only the account.
        second.get(system.base_url + "/#/account")
        fill(second, "#sign-in-name", name)
        fill(second, "#sign-in-password", password)
        click(second, "#sign-in button[type=submit]")
        find(second, f'#my-games a[href="#/games/{game_id}"]')
        assert not accessibility_problems(second), "the account page"
        assert second.execute_script("return localStorage.getItem('raffe.tokens')") is None
        click(second, f'#my-games a[href="#/games/{game_id}"]')
        wait_for(lambda: second.find_elements(By.CSS_SELECTOR, "#lowest-1:not([disabled])"))
        before = version_shown(second)
        click_giraffometer(second, {"lowest": 1, "highest": 2})
        wait_for(lambda: version_shown(second) > before, message="the vote was not taken")
        # Sign out everywhere from the second browser: the first is signed out too.
        second.get(system.base_url + "/#/account")
        click(second, "#sign-out-everywhere")
        find(second, "#sign-in")
        first.get(system.base_url + "/#/account")
        find(first, "#sign-in")
        wait_for(lambda: header_name(first) == "Sign in")
    finally:
        first.quit()
        second.quit()

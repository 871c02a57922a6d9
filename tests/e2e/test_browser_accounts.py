"""Accounts in a real browser (#26 items 1 and 2): a person creates an account and a
game in one browser, signs in from another (a fresh profile: no seat token there),
finds the game in their games and plays their seat from it; signing out everywhere
ends the first browser's session too. The account page passes axe-core."""

from __future__ import annotations

import json
import secrets
import threading
from typing import Any

import httpx
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from tests.e2e.browser import (
    accessibility_problems,
    browser,
    click,
    find,
    game_id_of,
    needs_chromium,
    shown_text,
    status,
    wait_for,
)
from tests.e2e.system import System, wait_over
from tests.e2e.test_browser import (
    click_giraffometer,
    create_from_lobby,
    overflows,
    play_by_clicking,
    version_shown,
)

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
        find(first, "#my-games, #sign-out")  # the account page is drawn
        first.get(system.base_url + "/#/")
        game_id = create_from_lobby(first, "giraffometer", ["you", "bot"])
        wait_for(lambda: "Your move" in status(first) or "vote" in status(first).lower())
        # The other browser holds no seat token: only the account. A wrong password
        # first: the page says so, and stays signed out.
        second.get(system.base_url + "/#/account")
        fill(second, "#sign-in-name", name)
        fill(second, "#sign-in-password", "not the password")
        click(second, "#sign-in button[type=submit]")
        wait_for(lambda: "do not match" in shown_text(second, "#toast"))
        assert header_name(second) == "Sign in"
        fill(second, "#sign-in-password", password)
        click(second, "#sign-in button[type=submit]")
        mine = find(second, f'#my-games a[href="#/games/{game_id}"]')
        assert mine.text.startswith("Giraffometer (seat "), mine.text  # its title, not id
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


def reloaded(driver: WebDriver, url: str, css: str, text: str) -> None:
    """Open ``url`` (anew) until ``css`` shows ``text``: the page draws once, as loaded."""

    def shown() -> bool:
        driver.get(url)
        driver.refresh()
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "main h1"), 10)
        return any(text in e.text for e in driver.find_elements(By.CSS_SELECTOR, css))

    wait_for(shown, 30, f"{css} never showed {text}")


def sign_in(driver: WebDriver, base_url: str, name: str, password: str) -> None:
    """Sign in on the account page, as a person types it."""
    driver.get(base_url + "/#/account")
    fill(driver, "#sign-in-name", name)
    fill(driver, "#sign-in-password", password)
    click(driver, "#sign-in button[type=submit]")


def signed_in_on_a_phone(driver: WebDriver, base_url: str, name: str, password: str) -> str:
    """The page 390 px wide, signed in as ``name`` (as a person types it): the account's
    token, as the page keeps it."""
    driver.set_window_size(390, 844)
    sign_in(driver, base_url, name, password)
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#sign-out"), 20, "not signed in")
    script = "return JSON.parse(localStorage.getItem('raffe.account')).token"
    return str(driver.execute_script(script))


def sign_up(driver: WebDriver, base_url: str, name: str, password: str) -> dict[str, Any]:
    driver.get(base_url + "/#/account")
    fill(driver, "#register-name", name)
    fill(driver, "#register-password", password)
    click(driver, "#register button[type=submit]")
    wait_for(lambda: header_name(driver) == name, message="not signed in")
    find(driver, "#sign-out")  # the account page is drawn
    return dict(json.loads(driver.execute_script("return localStorage.getItem('raffe.account')")))


def test_a_turn_based_quick_play_search_is_shown_again_on_return_and_opens_the_table(
    system: System, http: httpx.Client
) -> None:
    """Quick play by speed in the lobby: a person asks for a turn-based table, leaves the
    page, comes back to find the search still under way (with its wait in hours in a
    deployment, 6 s here) and is taken to the turn-based table once bots fill it."""
    driver = browser()
    try:
        me = sign_up(driver, system.base_url, f"Tess {secrets.token_hex(3)}", "a long password")
        driver.get(system.base_url + "/#/")
        Select(find(driver, "#qp-game")).select_by_value("giraffometer")
        Select(find(driver, "#qp-seats")).select_by_value("3")
        Select(find(driver, "#qp-speed")).select_by_value("turn_based")
        click(driver, "#quick-play")
        line = find(driver, "#qp-status")
        wait_for(lambda: "turn-based table" in line.text)
        assert "close this page" in line.text
        driver.get("about:blank")  # the page closed, then opened again
        driver.get(system.base_url + "/#/")
        shown = wait_for(
            lambda: (
                "turn-based table" in shown_text(driver, "#qp-status")
                or "#/games/" in driver.current_url
            )
        )
        assert shown
        if "#/games/" not in driver.current_url:
            assert find(driver, "#qp-cancel").is_displayed()
            assert not accessibility_problems(driver), "the lobby with a turn-based search"
        game_id = game_id_of(driver)  # bots filled the table: the page opened it
        view = http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {me['token']}"})
        assert view.json()["view"]["table"]["speed"] == "turn_based"
    finally:
        driver.quit()


def test_two_people_quick_play_to_the_end_and_see_ratings_boards_and_history(
    system: System, http: httpx.Client
) -> None:
    """#26's done-criterion: two people sign up in two browsers, press Quick play for
    Giraffe Raffe, sit at one table with a bot, play to the end, and both see their new
    ratings, the leaderboard and each other's history, also from a third browser where
    one of them signs in again."""
    names = [f"Quinn {secrets.token_hex(3)}", f"Rae {secrets.token_hex(3)}"]
    browsers = [browser(), browser()]
    third = browser()
    try:
        players = [
            sign_up(b, system.base_url, name, "a long password")
            for b, name in zip(browsers, names, strict=True)
        ]
        for b in browsers:
            b.get(system.base_url + "/#/")
            Select(find(b, "#qp-game")).select_by_value("giraffe-raffe")
            Select(find(b, "#qp-seats")).select_by_value("3")
            click(b, "#quick-play")
        shown = find(browsers[0], "#qp-status")
        wait_for(lambda: "Waiting" in shown.text or "#/games/" in browsers[0].current_url)
        game_ids = [game_id_of(b) for b in browsers]  # each browser opened the table itself
        assert game_ids[0] == game_ids[1]
        game_id = game_ids[0]
        seats = http.get(f"/v1/games/{game_id}/seats").json()["seats"]
        assert sorted(s["kind"] for s in seats) == ["bot", "human", "human"]
        assert {s["name"] for s in seats if s["kind"] == "human"} == set(names)
        # Both play to the end by clicking their own tables (what to click is read with
        # each one's account token: neither browser holds a seat token).
        movers = [
            threading.Thread(
                target=play_by_clicking, args=(b, http, "giraffe-raffe", game_id, p["token"])
            )
            for b, p in zip(browsers, players, strict=True)
        ]
        for t in movers:
            t.start()
        for t in movers:
            t.join(240)
        assert wait_over(http, game_id, 60)["view"]["status"]["over"]
        for b, p in zip(browsers, players, strict=True):
            # The projection rates the game a moment after it ends: a person reloads.
            page = f"/#/players/{p['player_id']}"
            reloaded(b, system.base_url + page, "#ratings", "Giraffe Raffe")
            find(b, "#rating-history")
            board = "/#/leaderboards/giraffe-raffe?season=all"
            for name in names:
                reloaded(b, system.base_url + board, "#leaderboard", name)
            assert p["name"] in shown_text(b, "#around-me")  # where a player stands
            shown_page = shown_text(b, "#app")
            assert "[object" not in shown_page and "null" not in shown_page, shown_page
        assert not accessibility_problems(browsers[0]), "the leaderboard"
        # Another browser: Quinn signs in again and reads Rae's history, with its replay.
        sign_in(third, system.base_url, names[0], "a long password")
        find(third, f'#my-games a[href="#/games/{game_id}"]')
        third.get(system.base_url + f"/#/players/{players[1]['player_id']}")
        find(third, f'#rated-games a[href="#/games/{game_id}/replay"]')
        assert names[0] in shown_text(third, "#rated-games")
        assert not accessibility_problems(third), "a player's page"
        # And Rae, signing in there in turn, reads Quinn's.
        third.get(system.base_url + "/#/account")
        click(third, "#sign-out")
        sign_in(third, system.base_url, names[1], "a long password")
        find(third, f'#my-games a[href="#/games/{game_id}"]')
        third.get(system.base_url + f"/#/players/{players[0]['player_id']}")
        find(third, f'#rated-games a[href="#/games/{game_id}/replay"]')
        assert names[1] in shown_text(third, "#rated-games")
        # On a phone: the new pages fit its width (nothing scrolls sideways).
        third.set_window_size(390, 844)
        for page, css in (
            (f"/#/players/{players[0]['player_id']}", "#rated-games"),
            ("/#/leaderboards/giraffe-raffe?season=all", "#leaderboard"),
            ("/#/account", "#my-games"),
            ("/#/", "#quick-play"),
        ):
            third.get(system.base_url + page)
            third.refresh()
            find(third, css)
            assert not overflows(third), f"{page} scrolls sideways on a phone"
    finally:
        for b in (*browsers, third):
            b.quit()


def test_an_invite_link_seats_the_signed_in_person_as_themselves(system: System) -> None:
    host, friend = browser(), browser()
    try:
        sign_up(host, system.base_url, f"Sol {secrets.token_hex(3)}", "sol's password")
        joined = sign_up(friend, system.base_url, f"Tam {secrets.token_hex(3)}", "tam's password")
        host.get(system.base_url + "/#/")
        game_id = create_from_lobby(host, "giraffometer", ["you", "open"])
        friend.get(find(host, ".invite-link").get_attribute("href") or "")
        wait_for(lambda: f"#/games/{game_id}" in friend.current_url)
        seats = wait_for(lambda: httpx.get(f"{system.base_url}/v1/games/{game_id}/seats").json())
        assert seats["seats"][1]["player_id"] == joined["player_id"]
        assert seats["seats"][1]["name"] == joined["name"]
        find(friend, "#lowest-1")  # the friend's own table: the vote is theirs to cast
    finally:
        host.quit()
        friend.quit()


def test_a_turn_based_table_from_the_form_and_the_games_awaiting_you(system: System) -> None:
    """#52: a person makes a turn-based table from the form (speed, then a pace), a friend
    joins by the invite link; each one's home page lists the game under "Your turn" with
    the days left, and the table's clocks count days; once the friend has voted, their
    list is empty while the host's still shows the game."""
    host, friend = browser(), browser()
    try:
        sign_up(host, system.base_url, f"Ada {secrets.token_hex(3)}", "ada's password")
        sign_up(friend, system.base_url, f"Eli {secrets.token_hex(3)}", "eli's password")
        host.get(system.base_url + "/#/")
        Select(find(host, "#game")).select_by_value("giraffometer")
        Select(find(host, "[data-option=speed]")).select_by_value("turn_based")
        pace = find(host, "[data-option=pace]")
        assert pace.is_displayed() and not find(host, "[data-option=bank_timer]").is_displayed()
        game_id = create_from_lobby(
            host, "giraffometer", ["you", "open"], speed="turn_based", pace="3_days"
        )
        friend.get(find(host, ".invite-link").get_attribute("href") or "")
        find(friend, "#lowest-1")
        wait_for(lambda: "2 d 23 h" in shown_text(friend, "#seats-bar"), message="a clock in days")
        for person in (host, friend):
            person.get(system.base_url + "/#/")
            wait_for(
                lambda p=person: p.find_elements(
                    By.CSS_SELECTOR, f'#awaiting [data-game="{game_id}"]'
                )
            )
            assert "turn-based · 2 d 23 h left" in shown_text(person, "#awaiting")
        click(friend, f'#awaiting [data-game="{game_id}"] a')
        before = wait_for(lambda: version_shown(friend))
        click_giraffometer(friend, {"lowest": 1, "highest": 2})
        wait_for(lambda: version_shown(friend) > before, message="the vote is not taken")

        def nothing_awaits() -> bool:  # the list is read once a page: look again
            friend.get(system.base_url + "/#/")
            return "No game awaits your move" in shown_text(friend, "#awaiting-note")

        wait_for(nothing_awaits, message="the vote's game is still listed")
        host.refresh()
        wait_for(lambda: host.find_elements(By.CSS_SELECTOR, f'#awaiting [data-game="{game_id}"]'))
        assert not accessibility_problems(host)
    finally:
        host.quit()
        friend.quit()

"""The fair table in Chromium (docs/fair-table.md): a person leaves mid-game and the other
finishes against the bot that plays the seat; each sees who is at the table."""

from __future__ import annotations

import json

import httpx
from selenium.webdriver.common.by import By

from tests.e2e.browser import (
    browser,
    click,
    find,
    held_seat,
    log_of,
    shown_text,
    status,
    texts,
    wait_for,
)
from tests.e2e.players import auth, create
from tests.e2e.system import System
from tests.e2e.test_browser import invited_pair, play_by_clicking, version_shown
from tests.e2e.test_fair_table import votes


def seat_line(driver: object, seat: int) -> str:
    return shown_text(driver, f'.seat-line[data-seat="{seat}"]')


def test_a_person_leaves_and_the_other_finishes_against_the_bot(
    system: System, http: httpx.Client
) -> None:
    with invited_pair(system, "giraffometer", target="3") as (alice, bob, game_id, _):
        # Both are here: each page shows the other connected (presence frames).
        wait_for(lambda: "here" in seat_line(alice, 1), 15, "Alice does not see Bob here")
        wait_for(lambda: "here" in seat_line(bob, 0), 15, "Bob does not see Alice here")
        bob.execute_script("window.confirm = () => true")
        click(bob, "#leave")
        wait_for(lambda: "a bot plays your seat" in shown_text(bob, "#stand-in"))
        wait_for(lambda: "left, a bot plays" in seat_line(alice, 1), 15, "no stand-in shown")
        wait_for(
            lambda: any("left the table" in line for line in texts(alice, "#move-log li")),
            10,
            "the move log does not tell it",
        )
        moves = play_by_clicking(alice, http, "giraffometer", game_id)
        assert moves > 0 and "Game over" in status(alice)
        token = held_seat(alice, game_id)["token"]
        final = http.get(f"/v1/games/{game_id}", headers=auth(token)).json()["view"]
        assert final["status"]["over"] and final["table"]["left"] == [{"seat": 1, "reason": "left"}]
        assert not alice.find_elements(By.CSS_SELECTOR, "#table-actions")  # over: no buttons
        assert not [e for e in log_of(alice, "browser") if e["level"] == "SEVERE"]


def test_two_players_rematch_from_the_finished_table(system: System) -> None:
    with invited_pair(system, "giraffe-raffe") as (alice, bob, game_id, _):
        wait_for(lambda: bob.find_elements(By.CSS_SELECTOR, "#concede"), 15, "no Concede")
        bob.execute_script("window.confirm = () => true")
        click(bob, "#concede")
        for page in (alice, bob):
            wait_for(lambda p=page: "Game over" in status(p), 15, "the game did not end")
        click(alice, "#play-again")
        wait_for(lambda: "Waiting for 1 player" in shown_text(alice, "#rematch-state"), 10)
        wait_for(lambda: "would like to play again" in shown_text(bob, "#rematch-state"), 10)
        click(bob, "#play-again")
        for page in (alice, bob):
            wait_for(
                lambda p=page: "#/games/" in p.current_url and game_id not in p.current_url,
                15,
                "no new table",
            )
        new_id = alice.current_url.rsplit("/", 1)[1]
        assert bob.current_url.endswith(new_id)
        for page, seat in ((alice, 0), (bob, 1)):
            assert held_seat(page, new_id)["seat"] == seat
            wait_for(lambda p=page: "Game over" not in status(p), 10)


def test_a_spectator_sees_the_game_two_moves_late(system: System, http: httpx.Client) -> None:
    game = create(
        http, "giraffometer", [{"kind": "human"}] * 2, options={"spectator_delay_moves": 2}
    )
    gid, tokens = game["game_id"], [game["tokens"][str(s)] for s in range(2)]
    spectator = browser()
    try:
        spectator.get(f"{system.base_url}/#/games/{gid}")
        wait_for(lambda: version_shown(spectator) > 0, 15, "the table did not load")
        first = votes(http, gid, tokens, 1) + votes(http, gid, tokens[:1], 1)  # three moves
        wait_for(lambda: version_shown(spectator) == first[0], 15, "not one move in")
        more = votes(http, gid, tokens[1:], 1)  # a fourth: the second shows
        wait_for(lambda: version_shown(spectator) == first[1], 15, "the next did not show")
        assert version_shown(spectator) < first[2] < more[0]
        assert not [e for e in log_of(spectator, "browser") if e["level"] == "SEVERE"]
    finally:
        spectator.quit()


def test_a_players_time_bank_counts_down_at_the_table(system: System, http: httpx.Client) -> None:
    game = create(http, "giraffometer", [{"kind": "human"}] * 2, options={"bank_timer": 60})
    gid, token = game["game_id"], game["tokens"]["0"]
    page = browser()
    try:
        page.get(f"{system.base_url}/")
        tokens = json.dumps({gid: {"seat": 0, "token": token}})
        page.execute_script(f"localStorage.setItem('raffe.tokens', {json.dumps(tokens)})")
        page.get(f"{system.base_url}/#/games/{gid}")
        wait_for(lambda: "Your move" in status(page), 15, "the table did not load")
        first = shown_text(page, "#bank-0")
        assert first.startswith("clock 1:00") or first.startswith("clock 0:5"), first
        wait_for(lambda: shown_text(page, "#bank-0") != first, 5, "the clock does not run")
        assert "running" in (find(page, "#bank-0").get_attribute("class") or "")
        assert shown_text(page, "#bank-1").startswith("clock 1:00") or "clock 0:5" in shown_text(
            page, "#bank-1"
        )
    finally:
        page.quit()

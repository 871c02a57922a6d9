"""The bot ladder people climb (#53 item 4, docs/bots.md): beat a level twice at a table
of two and its rung is climbed; practice games do not count. Over HTTP against the real
system, and the page in Chromium (axe clean, 390 px)."""

from __future__ import annotations

import secrets
import uuid
from typing import Any

import httpx
from selenium.webdriver.common.by import By

from services.giraffometer.decks import known_facts
from tests.e2e.browser import accessibility_problems, browser, click, find, needs_chromium, wait_for
from tests.e2e.players import auth
from tests.e2e.system import System, wait_over
from tests.e2e.test_accounts import register
from tests.e2e.test_browser import overflows
from tests.e2e.test_browser_accounts import signed_in_on_a_phone

PASSWORD = "a long password"


def duel(http: httpx.Client, me: dict[str, Any], level: str, **extra: Any) -> str:
    """A game of Giraffometer to one crystal against a bot of ``level``, voted by someone
    who knows every answer of the shipped deck (the person wins it, alone or shared)."""
    body = {
        "game": "giraffometer",
        "seats": [{"kind": "human", "player": "me"}, {"kind": "bot", "bot_level": level}],
        "options": {"target": 1},
        **extra,
    }
    created = http.post("/v1/games", json=body, headers=auth(me["token"]))
    assert created.status_code == 201, created.text
    game_id, token = created.json()["game_id"], created.json()["tokens"]["0"]
    view = http.get(f"/v1/games/{game_id}", headers=auth(token)).json()["view"]
    answers = [known_facts()[f["id"]].answer for f in view["facts"]]
    vote = {
        "type": "vote",
        "lowest": 1 + answers.index(min(answers)),
        "highest": 1 + answers.index(max(answers)),
    }
    sent = http.post(
        f"/v1/games/{game_id}/commands",
        json={"command": vote, "command_id": uuid.uuid4().hex},
        headers=auth(token),
    )
    assert sent.status_code == 200, sent.text
    assert 0 in wait_over(http, game_id)["view"]["status"]["winners"]
    return game_id


def ladder(http: httpx.Client, me: dict[str, Any], counted: int = 0) -> dict[str, Any]:
    """The player's ladder, once it counts ``counted`` games (it reads the read models,
    which trail a game's end by the projection's batch)."""
    found: dict[str, Any] = {}

    def read() -> bool:
        answer = http.get("/v1/accounts/me/ladder/giraffometer", headers=auth(me["token"]))
        assert answer.status_code == 200, answer.text
        found.update(answer.json())
        return sum(r["games"] for r in found["rungs"]) >= counted

    wait_for(read, 15, f"the ladder never counted {counted} games")
    return found


def test_two_wins_climb_a_rung_and_practice_does_not_count(http: httpx.Client) -> None:
    me = register(http, f"Climber {secrets.token_hex(3)}", PASSWORD)
    start = ladder(http, me)
    assert [r["name"] for r in start["rungs"]] == ["Beginner", "Novice", "Intermediate", "Expert"]
    assert (start["climbed"], start["next"]) == (0, "random")
    duel(http, me, "random", practice=True, seed="known deal")  # its creator knew the deal
    duel(http, me, "random")
    once = ladder(http, me, counted=1)
    assert once["rungs"][0]["wins"] == 1 and not once["rungs"][0]["beaten"]
    duel(http, me, "random")
    twice = ladder(http, me, counted=2)
    assert twice["rungs"][0]["beaten"] and twice["rungs"][0]["games"] == 2
    assert (twice["climbed"], twice["next"]) == (1, "easy")
    assert http.get("/v1/accounts/me/ladder/giraffometer").status_code == 401
    assert http.get("/v1/accounts/me/ladder/chess", headers=auth(me["token"])).status_code == 422


@needs_chromium
def test_the_ladder_page_shows_where_one_stands_and_plays_the_next_rung(
    system: System, http: httpx.Client
) -> None:
    name = f"Ladder {secrets.token_hex(3)}"
    me = register(http, name, PASSWORD)
    duel(http, me, "random")
    duel(http, me, "random")
    ladder(http, me, counted=2)
    driver = browser()
    try:
        signed_in_on_a_phone(driver, system.base_url, name, PASSWORD)
        driver.get(system.base_url + "/#/ladder/giraffometer")
        standing = find(driver, "#ladder-standing")
        assert "rung 1 of 4" in standing.text and "Novice" in standing.text
        rows = driver.find_elements(By.CSS_SELECTOR, "table.ladder tbody tr")
        assert "climbed" in rows[0].text and "your next rung" in rows[1].text
        assert accessibility_problems(driver) == []
        assert not overflows(driver)
        click(driver, "#ladder-play")  # a game against the next level
        wait_for(lambda: "#/games/" in driver.current_url, 15)
        game_id = driver.current_url.rsplit("/", 1)[1]
        seats = http.get(f"/v1/games/{game_id}/seats").json()["seats"]
        assert [s["kind"] for s in seats] == ["human", "bot"] and seats[1]["bot_level"] == "easy"
    finally:
        driver.quit()

"""Challenges (#54 item 2, docs/social.md) over HTTP against the real system: one player
challenges another, who accepts (the table is made with both seated) or declines; the
challenger takes one back; a block refuses them; an answered challenge stays answered."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.e2e.browser import accessibility_problems, browser, click, find, needs_chromium, wait_for
from tests.e2e.players import auth
from tests.e2e.system import System
from tests.e2e.test_accounts import register
from tests.e2e.test_browser import overflows
from tests.e2e.test_browser_accounts import signed_in_on_a_phone

PASSWORD = "a long password"


def person(http: httpx.Client, name: str) -> dict[str, Any]:
    return register(http, f"{name} {secrets.token_hex(3)}", PASSWORD)


def challenge(http: httpx.Client, who: dict[str, Any], to: str, **body: Any) -> httpx.Response:
    json = {"to": to, "game": "giraffometer", **body}
    return http.post("/v1/challenges", json=json, headers=auth(who["token"]))


def listed(http: httpx.Client, who: dict[str, Any]) -> dict[str, Any]:
    answer = http.get("/v1/challenges", headers=auth(who["token"]))
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_a_challenge_accepted_seats_both_at_a_new_table(http: httpx.Client) -> None:
    gil, hal = person(http, "Gil"), person(http, "Hal")
    sent = challenge(http, gil, hal["player_id"], seats=3, options={"target": 2})
    assert sent.status_code == 201, sent.text
    ch = sent.json()
    assert (ch["state"], ch["invitee_name"], ch["seats"]) == ("open", hal["name"], 3)
    (incoming,) = listed(http, hal)["incoming"]
    assert incoming["challenge_id"] == ch["challenge_id"]
    assert listed(http, gil)["outgoing"][0]["challenge_id"] == ch["challenge_id"]
    # Only the invitee answers.
    refused = http.post(f"/v1/challenges/{ch['challenge_id']}/accept", headers=auth(gil["token"]))
    assert refused.status_code == 403 and refused.json()["code"] == "not_yours"
    taken = http.post(f"/v1/challenges/{ch['challenge_id']}/accept", headers=auth(hal["token"]))
    assert taken.status_code == 200, taken.text
    game_id = taken.json()["game_id"]
    assert taken.json()["state"] == "accepted" and game_id
    seats = http.get(f"/v1/games/{game_id}/seats").json()["seats"]
    assert [s["player_id"] for s in seats[:2]] == [gil["player_id"], hal["player_id"]]
    assert seats[2]["kind"] == "bot"
    for who, seat in ((gil, 0), (hal, 1)):  # each plays it with their own token
        view = http.get(f"/v1/games/{game_id}", headers=auth(who["token"])).json()
        assert view["seat"] == seat
    assert listed(http, gil)["outgoing"][0]["game_id"] == game_id
    again = http.post(f"/v1/challenges/{ch['challenge_id']}/accept", headers=auth(hal["token"]))
    assert again.status_code == 409 and again.json()["code"] == "challenge_accepted"


def test_declined_taken_back_blocked_and_refused(http: httpx.Client) -> None:
    ivy, jo = person(http, "Ivy"), person(http, "Jo")
    first = challenge(http, ivy, jo["player_id"]).json()["challenge_id"]
    no = http.post(
        f"/v1/challenges/{first}/decline", json={"reason": "later"}, headers=auth(jo["token"])
    )
    assert no.status_code == 200 and (no.json()["state"], no.json()["reason"]) == (
        "declined",
        "later",
    )
    second = challenge(http, ivy, jo["player_id"]).json()["challenge_id"]
    back = http.delete(f"/v1/challenges/{second}", headers=auth(ivy["token"]))
    assert back.status_code == 200 and back.json()["state"] == "cancelled"
    late = http.post(f"/v1/challenges/{second}/accept", headers=auth(jo["token"]))
    assert late.status_code == 409 and late.json()["code"] == "challenge_cancelled"
    assert challenge(http, ivy, ivy["player_id"]).json()["code"] == "self"
    assert challenge(http, ivy, "pl" + "0" * 24).status_code == 404
    bad = challenge(http, ivy, jo["player_id"], options={"target": "seven"})
    assert bad.status_code == 422 and bad.json()["code"] == "bad_option"
    none = http.post(f"/v1/challenges/ch{'0' * 24}/accept", headers=auth(jo["token"]))
    assert none.status_code == 404 and none.json()["code"] == "no_challenge"
    # A block, either way, refuses challenges.
    assert (
        http.put(
            f"/v1/accounts/me/blocks/{ivy['player_id']}", headers=auth(jo["token"])
        ).status_code
        == 204
    )
    blocked = challenge(http, ivy, jo["player_id"])
    assert blocked.status_code == 403 and blocked.json()["code"] == "not_accepted"
    assert (
        http.post(
            "/v1/challenges", json={"to": jo["player_id"], "game": "giraffometer"}
        ).status_code
        == 401
    )


@needs_chromium
def test_a_challenge_from_a_players_page_is_accepted_in_the_other_browser(
    system: System, http: httpx.Client
) -> None:
    """Two browsers: Kim challenges Lee from Lee's page; Lee's lobby shows it within
    seconds, Lee accepts and is at the table; Kim's lobby links to it. Both pages pass
    axe at phone width."""
    kim_name, lee_name = f"Kim {secrets.token_hex(3)}", f"Lee {secrets.token_hex(3)}"
    register(http, kim_name, PASSWORD)
    lee = register(http, lee_name, PASSWORD)
    kim_browser, lee_browser = browser(), browser()
    try:
        signed_in_on_a_phone(kim_browser, system.base_url, kim_name, PASSWORD)
        signed_in_on_a_phone(lee_browser, system.base_url, lee_name, PASSWORD)
        lee_browser.get(system.base_url + "/#/")
        kim_browser.get(f"{system.base_url}/#/players/{lee['player_id']}")
        Select(find(kim_browser, "#challenge-game")).select_by_value("giraffometer")
        assert accessibility_problems(kim_browser) == []
        click(kim_browser, "#challenge")
        wait_for(
            lambda: lee_browser.find_elements(By.CSS_SELECTOR, "#challenges button.accept"), 20
        )
        assert kim_name in find(lee_browser, "#challenges").text
        assert accessibility_problems(lee_browser) == [] and not overflows(lee_browser)
        click(lee_browser, "#challenges button.accept")  # found again: the box redraws
        wait_for(lambda: "#/games/" in lee_browser.current_url, 15)
        game_id = lee_browser.current_url.rsplit("/", 1)[1]
        kim_browser.get(system.base_url + "/#/")
        wait_for(
            lambda: kim_browser.find_elements(
                By.CSS_SELECTOR, f'#challenges a[href="#/games/{game_id}"]'
            ),
            20,
        )
    finally:
        kim_browser.quit()
        lee_browser.quit()

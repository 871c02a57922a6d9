"""Friends (#54 item 1, docs/social.md) over HTTP against the real system: follows in
each player's account stream, mutual follows are friends, a friend at a table shows
(from presence) with their recent games, and an erased friend is gone from every list."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
from selenium.webdriver.common.by import By

from tests.e2e.browser import accessibility_problems, browser, click, find, needs_chromium, wait_for
from tests.e2e.players import auth
from tests.e2e.system import System
from tests.e2e.test_accounts import register
from tests.e2e.test_browser import overflows
from tests.e2e.test_browser_accounts import signed_in_on_a_phone
from tests.e2e.test_fair_table import Stream, until
from tests.e2e.test_quickplay import seated

PASSWORD = "a long password"


def friends_of(http: httpx.Client, who: dict[str, Any]) -> dict[str, Any]:
    answer = http.get("/v1/accounts/me/friends", headers=auth(who["token"]))
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def follow(http: httpx.Client, who: dict[str, Any], other: str) -> httpx.Response:
    return http.put(f"/v1/accounts/me/following/{other}", headers=auth(who["token"]))


def ids(people: list[dict[str, Any]]) -> list[str]:
    return [p["player_id"] for p in people]


def test_mutual_follows_are_friends_who_show_at_their_tables(
    system: System, http: httpx.Client
) -> None:
    ann = register(http, f"Ann {secrets.token_hex(3)}", PASSWORD)
    bob = register(http, f"Bob {secrets.token_hex(3)}", PASSWORD)
    assert follow(http, ann, bob["player_id"]).status_code == 204
    assert follow(http, ann, bob["player_id"]).status_code == 204  # again: nothing new
    mine = friends_of(http, ann)
    assert ids(mine["following"]) == [bob["player_id"]] and not mine["friends"]
    assert ids(friends_of(http, bob)["followers"]) == [ann["player_id"]]
    assert follow(http, bob, ann["player_id"]).status_code == 204
    assert ids(friends_of(http, ann)["friends"]) == [bob["player_id"]]

    # Bob sits at a table with its page open: Ann sees him there, and the game.
    seats = [{"kind": "human", "player": "me"}, {"kind": "bot", "bot_level": "random"}]
    game = http.post(
        "/v1/games", json={"game": "giraffometer", "seats": seats}, headers=auth(bob["token"])
    )
    assert game.status_code == 201, game.text
    game_id = game.json()["game_id"]
    stream = Stream(system.base_url, game_id, game.json()["tokens"]["0"])
    try:

        def at_table() -> bool:
            (friend,) = friends_of(http, ann)["friends"]
            return game_id in [t["game_id"] for t in friend["playing"]]

        until(at_table, 15)
        (friend,) = friends_of(http, ann)["friends"]
        assert friend["name"] == bob["name"] and game_id in [t["game_id"] for t in friend["recent"]]
    finally:
        stream.close()
    until(lambda: not friends_of(http, ann)["friends"][0]["playing"], 30)  # the page closed
    assert not friends_of(http, ann)["friends"][0]["online"]
    assert http.get("/v1/challenges", headers=auth(bob["token"])).status_code == 200  # lobby
    assert friends_of(http, ann)["friends"][0]["online"]

    assert (
        http.delete(
            f"/v1/accounts/me/following/{bob['player_id']}", headers=auth(ann["token"])
        ).status_code
        == 204
    )
    after = friends_of(http, ann)
    assert (
        not after["friends"]
        and not after["following"]
        and ids(after["followers"]) == [bob["player_id"]]
    )


def test_follow_refusals_and_an_erased_friend(http: httpx.Client) -> None:
    cy = register(http, f"Cy {secrets.token_hex(3)}", PASSWORD)
    dee = register(http, f"Dee {secrets.token_hex(3)}", PASSWORD)
    assert follow(http, cy, cy["player_id"]).json()["code"] == "self"
    unknown = follow(http, cy, "pl" + "0" * 24)
    assert unknown.status_code == 404 and unknown.json()["code"] == "no_player"
    assert http.put(f"/v1/accounts/me/following/{dee['player_id']}").status_code == 401
    assert (
        http.put("/v1/accounts/me/following/not-an-id", headers=auth(cy["token"])).status_code
        == 422
    )
    assert follow(http, cy, dee["player_id"]).status_code == 204
    assert follow(http, dee, cy["player_id"]).status_code == 204
    erased = http.post(
        "/v1/accounts/me/erase", json={"password": PASSWORD}, headers=auth(dee["token"])
    )
    assert erased.status_code == 204, erased.text
    left = friends_of(http, cy)
    assert not left["friends"] and not left["following"] and not left["followers"]


@needs_chromium
def test_two_people_become_friends_and_one_blocks_the_other_from_a_players_page(
    system: System, http: httpx.Client
) -> None:
    """In Chromium at phone width: Ann follows Bob from his page, Bob follows back, and
    Ann's friends page shows him at the table he has open (axe clean, no overflow)."""
    ann_name = f"Ann {secrets.token_hex(3)}"
    register(http, ann_name, PASSWORD)
    bob = register(http, f"Bob {secrets.token_hex(3)}", PASSWORD)
    driver = browser()
    try:
        token = signed_in_on_a_phone(driver, system.base_url, ann_name, PASSWORD)
        driver.get(f"{system.base_url}/#/players/{bob['player_id']}")
        click(driver, "#follow")
        wait_for(lambda: find(driver, "#follow").text == "Unfollow", 10)
        ann = {"token": token}
        assert ids(friends_of(http, ann)["following"]) == [bob["player_id"]]
        assert (
            follow(http, bob, friends_of(http, bob)["followers"][0]["player_id"]).status_code == 204
        )
        seats = [{"kind": "human", "player": "me"}, {"kind": "bot", "bot_level": "random"}]
        game = http.post(
            "/v1/games", json={"game": "giraffometer", "seats": seats}, headers=auth(bob["token"])
        ).json()
        stream = Stream(system.base_url, game["game_id"], game["tokens"]["0"])
        try:

            def shown() -> bool:
                driver.get(system.base_url + "/#/friends")
                found = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "main h1"), 10)
                friends = driver.find_elements(By.CSS_SELECTOR, "#friends li")
                return bool(found) and any("at a table now" in f.text for f in friends)

            wait_for(shown, 40, "the friend at a table never showed")
            assert bob["name"] in find(driver, "#friends").text
            assert accessibility_problems(driver) == []
            assert not overflows(driver)
            # Ann blocks Bob from his page: the follow ends and they are no friends.
            driver.get(f"{system.base_url}/#/players/{bob['player_id']}")
            click(driver, "#block")
            wait_for(lambda: find(driver, "#block").text == "Unblock", 10)
            assert (
                find(driver, "#follow").text == "Follow"
                and not find(driver, "#follow").is_enabled()
            )
            blocked = http.get("/v1/accounts/me/blocks", headers=auth(ann["token"])).json()
            assert ids(blocked["blocking"]) == [bob["player_id"]]
            assert not friends_of(http, ann)["friends"] and not friends_of(http, bob)["friends"]
            assert accessibility_problems(driver) == []
        finally:
            stream.close()
    finally:
        driver.quit()


def test_a_block_ends_the_friendship_and_quick_play_never_seats_the_two_together(
    http: httpx.Client,
) -> None:
    """#54 item 4 over HTTP: Eve blocks Fay; they are no friends (Eve's follow ends),
    Eve's block list names Fay, and the two, queued at once for the same table, are
    seated apart (bots fill each table after the setting) where they would have shared
    one."""
    eve = register(http, f"Eve {secrets.token_hex(3)}", PASSWORD)
    fay = register(http, f"Fay {secrets.token_hex(3)}", PASSWORD)
    assert follow(http, eve, fay["player_id"]).status_code == 204
    assert follow(http, fay, eve["player_id"]).status_code == 204
    assert ids(friends_of(http, fay)["friends"]) == [eve["player_id"]]
    blocked = http.put(f"/v1/accounts/me/blocks/{fay['player_id']}", headers=auth(eve["token"]))
    assert blocked.status_code == 204, blocked.text
    assert not friends_of(http, eve)["following"] and not friends_of(http, fay)["friends"]
    listed = http.get("/v1/accounts/me/blocks", headers=auth(eve["token"])).json()
    assert ids(listed["blocking"]) == [fay["player_id"]]
    join = {"game": "giraffometer", "seats": 5}  # a size no other test queues for
    for who in (fay, eve):  # the blocked one queues first: a block works both ways
        queued = http.post("/v1/quickplay", json=join, headers=auth(who["token"]))
        assert queued.status_code == 202, queued.text
    tables = {seated(http, who["token"])["game_id"] for who in (eve, fay)}
    assert len(tables) == 2
    unblocked = http.delete(
        f"/v1/accounts/me/blocks/{fay['player_id']}", headers=auth(eve["token"])
    )
    assert unblocked.status_code == 204
    assert not http.get("/v1/accounts/me/blocks", headers=auth(eve["token"])).json()["blocking"]

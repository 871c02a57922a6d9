"""Table chat (#54 item 3, docs/social.md) over HTTP against the real system: the
players' chat reaches the seats' live streams and not the spectators', the spectators'
chat never reaches the seats while the game runs, presets, plain text only, a rate
limit, a block hides messages both ways, and an erased author's messages are gone."""

from __future__ import annotations

import secrets
import time
from typing import Any

import httpx
from selenium.webdriver.common.keys import Keys

from tests.e2e.browser import accessibility_problems, browser, find, needs_chromium, wait_for
from tests.e2e.players import auth
from tests.e2e.system import System
from tests.e2e.test_accounts import register
from tests.e2e.test_browser import overflows
from tests.e2e.test_browser_accounts import signed_in_on_a_phone
from tests.e2e.test_fair_table import Stream, until

PASSWORD = "a long password"


def person(http: httpx.Client, name: str) -> dict[str, Any]:
    return register(http, f"{name} {secrets.token_hex(3)}", PASSWORD)


def say(http: httpx.Client, game_id: str, who: dict[str, Any], **body: Any) -> httpx.Response:
    return http.post(f"/v1/games/{game_id}/chat", json=body, headers=auth(who["token"]))


def chat(http: httpx.Client, game_id: str, who: dict[str, Any] | None, audience: str) -> Any:
    headers = auth(who["token"]) if who else {}
    return http.get(f"/v1/games/{game_id}/chat", params={"audience": audience}, headers=headers)


def texts(stream: Stream) -> list[str]:
    return [d["text"] for k, d in stream.frames if k == "chat"]


def table(http: httpx.Client, ann: dict[str, Any], bob: dict[str, Any]) -> str:
    seats = [{"kind": "human", "player": "me"}, {"kind": "human", "player": bob["player_id"]}]
    made = http.post(
        "/v1/games", json={"game": "giraffometer", "seats": seats}, headers=auth(ann["token"])
    )
    assert made.status_code == 201, made.text
    return str(made.json()["game_id"])


def test_players_and_spectators_talk_apart_while_the_game_runs(
    system: System, http: httpx.Client
) -> None:
    ann, bob, cy = person(http, "Ann"), person(http, "Bob"), person(http, "Cy")
    game_id = table(http, ann, bob)
    bob_sees = Stream(system.base_url, game_id, bob["token"])
    cy_sees = Stream(system.base_url, game_id, "")  # a spectator's stream
    try:
        until(lambda: any(k == "presence" for k, _ in bob_sees.frames), 15)
        assert say(http, game_id, ann, text="Hello Bob").status_code == 201
        assert say(http, game_id, ann, preset="good_luck").json()["text"] == "Good luck!"
        spectated = say(http, game_id, cy, audience="spectators", text="Bob has it")
        assert spectated.status_code == 201, spectated.text
        until(lambda: texts(bob_sees) == ["Hello Bob", "Good luck!"], 15)
        until(lambda: texts(cy_sees) == ["Bob has it"], 15)
        time.sleep(0.5)
        assert texts(bob_sees) == ["Hello Bob", "Good luck!"]  # never the spectators'
        assert texts(cy_sees) == ["Bob has it"]  # never the players'
        # The stored chats, as each side may read them.
        assert [m["text"] for m in chat(http, game_id, bob, "players").json()["messages"]] == [
            "Hello Bob",
            "Good luck!",
        ]
        assert chat(http, game_id, cy, "players").json()["code"] == "not_seated"
        assert chat(http, game_id, ann, "spectators").json()["code"] == "seated"
        assert [m["text"] for m in chat(http, game_id, None, "spectators").json()["messages"]] == [
            "Bob has it"
        ]
        assert say(http, game_id, cy, text="hi players").json()["code"] == "not_seated"
        assert say(http, game_id, bob, audience="spectators", text="hi").json()["code"] == "seated"
    finally:
        bob_sees.close()
        cy_sees.close()


def test_plain_text_only_a_limit_blocks_and_erasure(http: httpx.Client) -> None:
    ann, bob = person(http, "Dee"), person(http, "Eli")
    game_id = table(http, ann, bob)
    for bad in ("", "x" * 201, "abc\u202edef", "\u0410lice"):  # empty, long, bidi, look-alike
        refused = say(http, game_id, ann, text=bad)
        assert refused.status_code == 422 and refused.json()["code"] == "bad_text", bad
    assert say(http, game_id, ann, preset="rude").json()["code"] == "bad_preset"
    assert http.post(f"/v1/games/{game_id}/chat", json={"text": "hi"}).status_code == 401
    sent = [say(http, game_id, ann, text=f"message {n}").status_code for n in range(6)]
    assert sent == [201] * 5 + [429]
    limited = say(http, game_id, ann, text="one more")
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
    # Bob blocks Ann: her messages are hidden from him, his from her.
    assert say(http, game_id, bob, text="from Eli").status_code == 201
    assert (
        http.put(
            f"/v1/accounts/me/blocks/{ann['player_id']}", headers=auth(bob["token"])
        ).status_code
        == 204
    )
    authors = {m["player_id"] for m in chat(http, game_id, bob, "players").json()["messages"]}
    assert authors == {bob["player_id"]}  # Ann's are hidden from Bob ...
    authors = {m["player_id"] for m in chat(http, game_id, ann, "players").json()["messages"]}
    assert authors == {ann["player_id"]}  # ... and his from her
    # Ann erases her account: her messages are unreadable, so gone, for everyone.
    http.delete(f"/v1/accounts/me/blocks/{ann['player_id']}", headers=auth(bob["token"]))
    assert any(
        m["player_id"] == ann["player_id"]
        for m in chat(http, game_id, bob, "players").json()["messages"]
    )
    erased = http.post(
        "/v1/accounts/me/erase", json={"password": PASSWORD}, headers=auth(ann["token"])
    )
    assert erased.status_code == 204
    left = chat(http, game_id, bob, "players").json()["messages"]
    assert [m["text"] for m in left] == ["from Eli"]


@needs_chromium
def test_they_chat_at_the_table_and_a_spectators_chat_never_shows_to_the_seats(
    system: System, http: httpx.Client
) -> None:
    """#54's done-criterion in Chromium, at phone width: a player types a message (the
    keyboard's Enter sends it) and the other player's reply shows at once; a signed-in
    spectator's chat shows to spectators and never to the seats while the game runs.
    Both pages pass axe."""
    ann_name = f"Fay {secrets.token_hex(3)}"
    register(http, ann_name, PASSWORD)
    cy_name = f"Gus {secrets.token_hex(3)}"
    register(http, cy_name, PASSWORD)
    bob = person(http, "Hal")
    seated_browser, spectator_browser = browser(), browser()
    try:
        first = signed_in_on_a_phone(seated_browser, system.base_url, ann_name, PASSWORD)
        signed_in_on_a_phone(spectator_browser, system.base_url, cy_name, PASSWORD)
        ann = {"token": first}
        game_id = table(http, ann, bob)
        seated_browser.get(f"{system.base_url}/#/games/{game_id}")
        spectator_browser.get(f"{system.base_url}/#/games/{game_id}")
        field = find(seated_browser, "#chat-text")
        field.send_keys("Good luck, Hal" + Keys.ENTER)
        wait_for(lambda: "Good luck, Hal" in find(seated_browser, "#chat-log").text, 10)
        assert say(http, game_id, bob, text="Thanks, you too").status_code == 201
        wait_for(lambda: "Thanks, you too" in find(seated_browser, "#chat-log").text, 10)
        find(spectator_browser, "#chat-text").send_keys("Hal is ahead" + Keys.ENTER)
        wait_for(lambda: "Hal is ahead" in find(spectator_browser, "#chat-log").text, 10)
        assert "Good luck" not in find(spectator_browser, "#chat-log").text
        time.sleep(2)  # the spectators' message had every chance to arrive
        assert "Hal is ahead" not in find(seated_browser, "#chat-log").text
        for driver in (seated_browser, spectator_browser):
            assert accessibility_problems(driver) == [] and not overflows(driver)
    finally:
        seated_browser.quit()
        spectator_browser.quit()

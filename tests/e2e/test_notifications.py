"""Your turn, told (#52 item 5): the notifier, a process of its own, sends one webhook
delivery per turn of a turn-based game to the player whose turn it is, signed, with the
table's link; it sends nothing twice and misses nothing when it is killed and comes back
or when a second notifier runs beside it; a receiver that keeps failing gets its webhook
switched off, with a notice its player sees. Against a real HTTP receiver on loopback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from services.core.local_redis import free_port
from services.games import GAMES
from services.kernel.rng import SeededRng
from services.notifier.channels import channels_key
from services.notifier.webhook import DELIVERY, SIGNATURE, verify
from tests.e2e.players import auth
from tests.e2e.receivers import WebhookReceiver, webhook_receiver
from tests.e2e.system import System, running_system
from tests.e2e.test_accounts import register, unique

ENV = {
    "RAFFE_WEBHOOK_ALLOW_HTTP": "true",
    "RAFFE_WEBHOOK_ALLOW_PRIVATE": "true",
    "RAFFE_WEBHOOK_RETRY_S": "0.05",
    "RAFFE_WEBHOOK_ATTEMPTS": "3",
    "RAFFE_WEBHOOK_DISABLE_AFTER": "2",
    "RAFFE_REGISTRATIONS_PER_WINDOW": "1000",  # each test registers its own players
}


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    with webhook_receiver() as r:
        yield r


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    with running_system(tmp_path_factory.mktemp("notify"), **ENV) as s:
        yield s


@pytest.fixture
def http(system: System) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=system.base_url, timeout=20) as client:
        yield client


def player_with_hook(
    http: httpx.Client, receiver: WebhookReceiver, path: str, fmt: str = "raffe"
) -> dict[str, Any]:
    me = register(http, unique(path.strip("/")), "a long password")
    hook = {"url": receiver.url + path, "format": fmt}
    made = http.put("/v1/accounts/me/notifications/webhook", json=hook, headers=auth(me["token"]))
    assert made.status_code == 200, made.text
    return {**me, "secret": made.json()["secret"]}


def turn_based(http: httpx.Client, me: dict[str, Any], other: dict[str, Any]) -> str:
    body = {
        "game": "giraffe-raffe",
        "seats": [
            {"kind": "human", "player": "me"},
            {"kind": "human", "player": other["player_id"]},
        ],
        "options": {"dealer": 0, "speed": "turn_based"},
    }
    made = http.post("/v1/games", json=body, headers=auth(me["token"]))
    assert made.status_code == 201, made.text
    return str(made.json()["game_id"])


def move(http: httpx.Client, game_id: str, who: dict[str, Any]) -> int:
    legal = http.get(f"/v1/games/{game_id}/commands", headers=auth(who["token"])).json()
    assert legal["to_act"], legal
    view = http.get(
        f"/v1/games/{game_id}", params={"min_version": legal["version"]}, headers=auth(who["token"])
    ).json()["view"]
    chosen = GAMES["giraffe-raffe"].bot("random")(view, legal, SeededRng(game_id, legal["version"]))
    body = {"command": chosen, "command_id": uuid.uuid4().hex}
    answer = http.post(f"/v1/games/{game_id}/commands", json=body, headers=auth(who["token"]))
    assert answer.status_code == 200, answer.text
    return int(answer.json()["version"])


def test_each_turn_is_told_once_signed_with_the_tables_link(
    http: httpx.Client, receiver: WebhookReceiver
) -> None:
    ann, bo = player_with_hook(http, receiver, "/ann"), player_with_hook(http, receiver, "/bo")
    gid = turn_based(http, ann, bo)
    (first,) = receiver.wait("/ann", 1)
    body = first.json()
    assert (body["type"], body["game_id"], body["seat"]) == ("your_turn", gid, 0)
    assert body["url"].endswith(f"/#/games/{gid}") and "Giraffe Raffe" in body["text"]
    assert body["deadline_ms"] > time.time() * 1000 + 23 * 3_600_000  # a day's bank
    assert verify(ann["secret"], first.headers[SIGNATURE], first.body, int(time.time()))
    assert not verify(bo["secret"], first.headers[SIGNATURE], first.body, int(time.time()))
    assert first.headers[DELIVERY] == body["delivery"]
    move(http, gid, ann)
    (told,) = receiver.wait("/bo", 1)
    assert told.json()["seat"] == 1
    assert verify(bo["secret"], told.headers[SIGNATURE], told.body, int(time.time()))
    time.sleep(1.0)  # nothing more comes
    assert len(receiver.at("/ann")) == 1 and len(receiver.at("/bo")) == 1


def test_killed_and_doubled_the_notifier_sends_nothing_twice_and_misses_nothing(
    system: System, http: httpx.Client, receiver: WebhookReceiver
) -> None:
    cy, di = player_with_hook(http, receiver, "/cy"), player_with_hook(http, receiver, "/di")
    games = [turn_based(http, cy, di) for _ in range(3)]
    receiver.wait("/cy", 3)
    os.kill(system.processes["notifier"][1], signal.SIGKILL)  # the launcher brings it back
    second = subprocess.Popen(
        [sys.executable, "-m", "services.notifier"],
        env={**system.env, "RAFFE_PORT": str(free_port()), "RAFFE_METRICS_PORT": ""},
    )
    try:
        moves = 0
        for _ in range(3):  # turns fall due while one notifier is down and two share
            for gid in games:
                move(http, gid, cy)
                move(http, gid, di)
                moves += 2
        cy_turns = receiver.wait("/cy", 3 + moves // 2, timeout=60)
        di_turns = receiver.wait("/di", moves // 2, timeout=60)
        time.sleep(2.0)  # a duplicate, if any, would come by now
        for path, expected in (("/cy", 3 + moves // 2), ("/di", moves // 2)):
            keys = [r.headers[DELIVERY] for r in receiver.at(path)]
            assert len(keys) == len(set(keys)) == expected, (path, keys)
        assert {r.json()["game_id"] for r in cy_turns + di_turns} == set(games)
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=30)


def test_a_receiver_that_keeps_failing_gets_its_webhook_switched_off_and_told_why(
    http: httpx.Client, receiver: WebhookReceiver
) -> None:
    eve = player_with_hook(http, receiver, "/eve", fmt="discord")
    fay = player_with_hook(http, receiver, "/fay")
    receiver.failing["/eve"] = [500] * 6  # every try of two deliveries fails
    gid = turn_based(http, eve, fay)
    first = receiver.wait("/eve", 3)  # three attempts of the first turn
    assert set(first[0].json()) == {"content"} and gid in first[0].json()["content"]
    assert len({r.headers[DELIVERY] for r in first}) == 1  # the same delivery, retried
    move(http, gid, eve)
    move(http, gid, fay)  # a second turn: its three attempts fail too
    receiver.wait("/eve", 6)
    state = http.get("/v1/accounts/me/notifications", headers=auth(eve["token"]))
    for _ in range(100):
        hook = http.get("/v1/accounts/me/notifications", headers=auth(eve["token"])).json()[
            "webhook"
        ]
        if not hook["on"]:
            break
        time.sleep(0.05)
    assert state.status_code == 200
    assert hook["on"] is False and "HTTP 500" in hook["notice"], hook
    move(http, gid, eve)
    move(http, gid, fay)
    time.sleep(1.0)
    assert len(receiver.at("/eve")) == 6  # off: nothing more is sent


def test_webhook_urls_are_checked_and_the_channel_goes_with_the_account(
    system: System, http: httpx.Client, receiver: WebhookReceiver
) -> None:
    gus = player_with_hook(http, receiver, "/gus")
    bad = http.put(
        "/v1/accounts/me/notifications/webhook",
        json={"url": "ftp://example.org/x"},
        headers=auth(gus["token"]),
    )
    assert bad.status_code == 422 and bad.json()["code"] == "bad_url"
    assert bad.headers["content-type"].startswith("application/problem+json")
    unknown = http.put(
        "/v1/accounts/me/notifications/webhook",
        json={"url": receiver.url, "format": "irc"},
        headers=auth(gus["token"]),
    )
    assert unknown.status_code == 422
    key = channels_key(system.env.get("RAFFE_KEY_PREFIX", "raffe"), gus["player_id"])
    with redis.Redis.from_url(system.redis_url) as r:
        assert r.exists(key)
        gone = http.post(
            "/v1/accounts/me/erase",
            json={"password": "a long password"},
            headers=auth(gus["token"]),
        )
        assert gone.status_code in (200, 204), gone.text
        assert not r.exists(key)  # the URL and secret went with the account


def test_nothing_is_told_while_the_table_is_in_view(
    http: httpx.Client, receiver: WebhookReceiver
) -> None:
    """#52 item 5: the client says its table is in view (PUT .../watching); a turn that
    comes meanwhile is not told; once the page is hidden, the next one is."""
    hal, ivy = player_with_hook(http, receiver, "/hal"), player_with_hook(http, receiver, "/ivy")
    gid = turn_based(http, hal, ivy)
    receiver.wait("/hal", 1)
    shown = http.put(
        f"/v1/games/{gid}/watching", json={"visible": True}, headers=auth(ivy["token"])
    )
    assert shown.status_code == 204, shown.text
    move(http, gid, hal)  # ivy's turn, with the table in front of her
    time.sleep(1.5)
    assert receiver.at("/ivy") == []
    hidden = http.put(
        f"/v1/games/{gid}/watching", json={"visible": False}, headers=auth(ivy["token"])
    )
    assert hidden.status_code == 204
    move(http, gid, ivy)
    move(http, gid, hal)  # ivy's next turn, the page hidden: told
    (told,) = receiver.wait("/ivy", 1)
    assert told.json()["game_id"] == gid
    stranger = http.put(f"/v1/games/{gid}/watching", json={"visible": True})
    assert stranger.status_code == 401


def test_a_challenge_is_told_once_to_the_invitee_by_webhook(
    http: httpx.Client, receiver: WebhookReceiver
) -> None:
    """#54 item 2: a challenge reaches the invitee's channels (here a webhook, signed),
    once, with the lobby's link where it is answered; the challenger is told nothing."""
    cat, dan = player_with_hook(http, receiver, "/cat"), player_with_hook(http, receiver, "/dan")
    sent = http.post(
        "/v1/challenges",
        json={"to": dan["player_id"], "game": "riff-raff"},
        headers=auth(cat["token"]),
    )
    assert sent.status_code == 201, sent.text
    (told,) = receiver.wait("/dan", 1)
    body = told.json()
    assert (body["type"], body["game_id"], body["game"]) == (
        "challenge",
        sent.json()["challenge_id"],
        "riff-raff",
    )
    assert body["url"].endswith("/#/") and "Riff Raff" in body["text"]
    assert verify(dan["secret"], told.headers[SIGNATURE], told.body, int(time.time()))
    time.sleep(1.0)  # nothing more comes, and nothing to the challenger
    assert len(receiver.at("/dan")) == 1 and not receiver.at("/cat")

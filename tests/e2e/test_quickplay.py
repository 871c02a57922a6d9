"""Quick play over HTTP against the running system (#26 item 5): two players queued
through two gateways sit at one table; a lone player sees their place and wait on the
live stream and is seated with bots once the wait is up (RAFFE_QUICKPLAY_BOTS_AFTER_S=3
in these tests); leaving the queue, joining twice and impossible tables are refused."""

from __future__ import annotations

import time
from typing import Any

import httpx

from services.core.codec import loads
from tests.e2e.players import auth
from tests.e2e.system import System, extra_gateway
from tests.e2e.test_accounts import register, seats_of, unique


def seated(http: httpx.Client, token: str, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ticket = http.get("/v1/quickplay", headers=auth(token)).json()
        if ticket["state"] == "seated":
            return dict(ticket)
        time.sleep(0.1)
    raise AssertionError(f"not seated: {ticket}")


def test_two_players_queued_through_two_gateways_sit_at_one_table(
    http: httpx.Client, system: System
) -> None:
    ada = register(http, unique("Ada"), "ada's password")
    with extra_gateway(system) as other:
        bo = register(other, unique("Bo"), "bo's password")
        for client, who in ((http, ada), (other, bo)):
            queued = client.post(
                "/v1/quickplay",
                json={"game": "giraffometer", "seats": 2},
                headers=auth(who["token"]),
            )
            assert queued.status_code == 202, queued.text
            assert queued.json()["state"] in ("waiting", "matched", "seated")
        first, second = seated(http, ada["token"]), seated(other, bo["token"])
    assert first["game_id"] == second["game_id"] and {first["seat"], second["seat"]} == {0, 1}
    game_id = first["game_id"]
    players = {s["player_id"] for s in seats_of(http, game_id)}
    assert players == {ada["player_id"], bo["player_id"]}  # no bot: two players were near
    view = http.get(f"/v1/games/{game_id}", headers=auth(ada["token"])).json()
    assert view["seat"] == first["seat"]
    mine = http.get("/v1/accounts/me/games", headers=auth(bo["token"])).json()["games"]
    assert game_id in [g["game_id"] for g in mine]


def test_a_lone_player_sees_the_wait_live_then_bots_fill_the_table(http: httpx.Client) -> None:
    cal = register(http, unique("Cal"), "cal's password")
    queued = http.post(
        "/v1/quickplay", json={"game": "giraffe-raffe", "seats": 3}, headers=auth(cal["token"])
    ).json()
    assert queued["position"] == 1 and 0 < queued["estimated_wait_s"] <= 3
    frames = []
    started = time.monotonic()
    with http.stream("GET", "/v1/quickplay/stream", headers=auth(cal["token"])) as live:
        assert live.headers["content-type"].startswith("text/event-stream")
        for line in live.iter_lines():
            if line.startswith("data: "):
                frames.append(loads(line[6:]))
                if frames[-1]["state"] == "seated":
                    break
    waited = time.monotonic() - started
    assert frames[0]["state"] == "waiting" and frames[0]["position"] == 1
    assert frames[-1]["state"] == "seated" and frames[-1]["game_id"]
    assert waited >= 1.5  # it waited for players before bots took the seats
    seats = seats_of(http, frames[-1]["game_id"])
    assert [s["kind"] for s in seats].count("bot") == 2
    assert [s["player_id"] for s in seats if s["kind"] == "human"] == [cal["player_id"]]


def test_leaving_the_queue_and_what_is_refused(http: httpx.Client) -> None:
    dee = register(http, unique("Dee"), "dee's password")
    join = {"game": "giraffometer", "seats": 4}
    assert http.post("/v1/quickplay", json=join, headers=auth(dee["token"])).status_code == 202
    twice = http.post("/v1/quickplay", json=join, headers=auth(dee["token"]))
    assert twice.status_code == 409 and twice.json()["code"] == "already_queued"
    assert http.delete("/v1/quickplay", headers=auth(dee["token"])).status_code == 204
    assert http.get("/v1/quickplay", headers=auth(dee["token"])).json()["state"] == "cancelled"
    bad = http.post(
        "/v1/quickplay", json={"game": "giraffe-raffe", "seats": 9}, headers=auth(dee["token"])
    )
    assert bad.status_code == 422 and bad.json()["code"] == "bad_table_size"
    anonymous = http.post("/v1/quickplay", json=join)
    assert anonymous.status_code == 401

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


def test_a_turn_based_ticket_waits_beside_a_live_one_and_fills_with_bots_later(
    http: httpx.Client,
) -> None:
    """Quick play by speed: a turn-based ticket is a second ticket (a live one may wait
    beside it), waits its own time (RAFFE_TURN_BASED_BOTS_AFTER_S=6 here, 3 for a live
    table) and seats the player at a turn-based game, with bots where nobody came."""
    eve = register(http, unique("Eve"), "eve's password")
    slow = {"game": "riff-raff", "seats": 3, "speed": "turn_based"}
    queued = http.post("/v1/quickplay", json=slow, headers=auth(eve["token"]))
    assert queued.status_code == 202, queued.text
    assert queued.json()["speed"] == "turn_based" and 3 < queued.json()["estimated_wait_s"] <= 6
    live = {"game": "riff-raff", "seats": 3}
    assert http.post("/v1/quickplay", json=live, headers=auth(eve["token"])).status_code == 202
    twice = http.post("/v1/quickplay", json=slow, headers=auth(eve["token"]))
    assert twice.status_code == 409 and twice.json()["code"] == "already_queued"
    quick = seated(http, eve["token"])  # the live one, after its 3 s
    turn_based = {"speed": "turn_based"}
    mine = http.get("/v1/quickplay", params=turn_based, headers=auth(eve["token"])).json()
    assert mine["state"] in ("waiting", "seated")  # may just have been seated
    deadline = time.monotonic() + 30
    while mine["state"] != "seated" and time.monotonic() < deadline:
        time.sleep(0.2)
        mine = http.get("/v1/quickplay", params=turn_based, headers=auth(eve["token"])).json()
    assert mine["state"] == "seated" and mine["game_id"] != quick["game_id"]
    assert mine["joined_ms"] + 5_000 <= int(time.time() * 1000)  # it waited its own time
    view = http.get(f"/v1/games/{mine['game_id']}", headers=auth(eve["token"])).json()
    assert view["view"]["table"]["speed"] == "turn_based" and view["seat"] == mine["seat"]
    seats = seats_of(http, mine["game_id"])
    assert [s["kind"] for s in seats].count("bot") == 2


def test_a_turn_based_ticket_is_left_on_its_own(http: httpx.Client) -> None:
    fay = register(http, unique("Fay"), "fay's password")
    slow = {"game": "giraffometer", "seats": 4, "speed": "turn_based"}
    assert http.post("/v1/quickplay", json=slow, headers=auth(fay["token"])).status_code == 202
    assert http.get("/v1/quickplay", headers=auth(fay["token"])).status_code == 404  # no live one
    assert http.delete("/v1/quickplay", headers=auth(fay["token"])).status_code == 404
    params = {"speed": "turn_based"}
    left = http.delete("/v1/quickplay", params=params, headers=auth(fay["token"]))
    assert left.status_code == 204
    ticket = http.get("/v1/quickplay", params=params, headers=auth(fay["token"])).json()
    assert ticket["state"] == "cancelled"
    bad = http.get("/v1/quickplay", params={"speed": "slow"}, headers=auth(fay["token"]))
    assert bad.status_code == 422

"""What an operator reads (#29 item 5): every service logs JSON lines with the time to the
millisecond and no terminal colour codes; the gateway logs every request (never its query:
stream tickets ride there) and hands its request id to the engine, whose lines carry it."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import orjson

from tests.e2e.players import auth, create
from tests.e2e.system import System
from tests.e2e.test_bot_api import bot

MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def lines(system: System) -> list[dict[str, Any]]:
    assert system.log is not None
    raw = system.log.read_text()
    assert "\x1b" not in raw, "a terminal colour code in the logs"
    return [orjson.loads(line) for line in raw.splitlines() if line.startswith("{")]


def test_a_request_is_logged_and_traced_into_the_engine(system: System, http: httpx.Client) -> None:
    game = create(http, "giraffe-raffe", [{"kind": "human"}] * 2)
    gid, token = game["game_id"], game["tokens"]["1"]
    trace = f"trace-{time.time_ns()}"
    refused = http.post(
        f"/v1/games/{gid}/commands",
        json={"command": {"type": "return_apple"}, "command_id": "x"},
        headers={**auth(token), "X-Request-Id": trace},
    )
    assert refused.status_code == 422 and refused.headers["x-request-id"] == trace
    http.get(f"/v1/games/{gid}/events/stream", params={"ticket": "secret-ticket"})
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        seen = [line for line in lines(system) if line.get("request_id") == trace]
        if {line["logger"] for line in seen} >= {"access", "services.core.engine_service"}:
            break
        time.sleep(0.2)
    kinds = {line["logger"] for line in seen}
    assert {"access", "services.core.engine_service"} <= kinds, seen
    request = next(line for line in seen if line["logger"] == "access")
    assert request["path"] == f"/v1/games/{gid}/commands" and request["status"] == 422
    assert request["ms"] >= 0 and request["method"] == "POST"
    everything = lines(system)
    assert all(MS.match(line["time"]) for line in everything)
    assert not any("secret-ticket" in orjson.dumps(line).decode() for line in everything)
    assert not any("color_message" in line for line in everything)
    assert http.get("/healthz").headers["x-request-id"]  # one is made when none is sent


def test_a_stream_is_logged_when_it_opens_and_its_frames_still_flow(
    system: System, http: httpx.Client
) -> None:
    """A live stream's request is logged (and timed) once its head is sent, not hours
    later when it ends: its body runs outside the middlewares (decision 0060), while its
    head still carries what they add (request id, CORS, no-store). Its frames flow."""
    game = create(http, "giraffometer", [{"kind": "human"}] * 2)
    gid, token = game["game_id"], game["tokens"]["0"]
    trace = f"stream-{time.time_ns()}"
    headers = {**auth(token), "X-Request-Id": trace, "Origin": "https://play.example.org"}
    path = f"/v1/games/{gid}/events/stream"
    with http.stream("GET", path, headers=headers) as live:
        assert live.status_code == 200 and live.headers["x-request-id"] == trace
        assert "no-store" in live.headers["cache-control"]
        assert live.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert "content-length" not in live.headers  # as long as the stream lives
        assert live.headers["access-control-allow-origin"] in ("*", headers["Origin"])
        deadline = time.monotonic() + 10
        logged: list[dict[str, Any]] = []
        while not logged and time.monotonic() < deadline:
            logged = [line for line in lines(system) if line.get("request_id") == trace]
            time.sleep(0.1)
        assert [(line["path"], line["status"]) for line in logged] == [(path, 200)], logged
        vote = {"command": {"type": "vote", "lowest": 1, "highest": 2}, "command_id": trace}
        assert http.post(f"/v1/games/{gid}/commands", json=vote, headers=auth(token)).is_success
        seen, deadline = b"", time.monotonic() + 10
        for chunk in live.iter_bytes():  # heartbeats come every second here
            seen += chunk
            if b"event: VoteCast" in seen or time.monotonic() > deadline:
                break
        assert b"event: VoteCast" in seen, seen[-500:]


def test_an_account_stream_is_logged_when_it_opens_and_its_bot_lock_goes_with_it(
    system: System, http: httpx.Client
) -> None:
    """As a game's stream: the account stream's head carries what the middlewares add and
    its request is logged once the head is sent (its body runs outside them); when the
    client goes, a bot's one-stream lock goes too, so the next stream opens at once."""
    robo = bot(http, "Logged")
    trace = f"account-{time.time_ns()}"
    headers = {**auth(robo["token"]), "X-Request-Id": trace, "Origin": "https://play.example.org"}
    path = "/v1/accounts/me/events"
    with http.stream("GET", path, headers=headers) as live:
        assert live.status_code == 200 and live.headers["x-request-id"] == trace
        assert live.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert live.headers["x-accel-buffering"] == "no" and "content-length" not in live.headers
        assert live.headers["access-control-allow-origin"] in ("*", headers["Origin"])
        chunks, seen = live.iter_bytes(), b""  # one iterator: leaving it closes the stream
        while b"event: opened" not in seen:
            seen += next(chunks)
        deadline, logged = time.monotonic() + 10, []
        while not logged and time.monotonic() < deadline:
            logged = [line for line in lines(system) if line.get("request_id") == trace]
            time.sleep(0.1)
        assert [(line["path"], line["status"]) for line in logged] == [(path, 200)], logged
        refused = http.get(path, headers=auth(robo["token"]), timeout=5)
        assert refused.status_code == 429 and refused.json()["code"] == "bot_streams"
        while b"ping" not in seen:  # still open, beating (every second here)
            seen += next(chunks)
    deadline, status = time.monotonic() + 10, 0
    while status != 200 and time.monotonic() < deadline:  # the close lands in a moment
        with http.stream("GET", path, headers=auth(robo["token"]), timeout=5) as again:
            status = again.status_code
        time.sleep(0.1)
    assert status == 200

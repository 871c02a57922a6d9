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

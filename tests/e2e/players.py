"""Playing a seat through the REST API, as a frontend would."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx

from services.games import GAMES
from services.kernel.rng import SeededRng


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(
    http: httpx.Client, game: str, seats: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    response = http.post("/v1/games", json={"game": game, "seats": seats, **extra})
    assert response.status_code == 201, response.text
    return dict(response.json())


def play_seat(
    http: httpx.Client, game: str, game_id: str, token: str, level: str, timeout: float = 90.0
) -> dict[int, dict[str, Any]]:
    """Play one seat to the end; returns the view each command's response delivered, by
    version."""
    seen: dict[int, dict[str, Any]] = {}
    bot = GAMES[game].bot(level)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        legal = http.get(f"/v1/games/{game_id}/commands", headers=auth(token)).json()
        # The view of the same version (the read model may lag the engine a little).
        current = http.get(
            f"/v1/games/{game_id}",
            params={"min_version": legal["version"]},
            headers=auth(token),
        ).json()
        if current["view"]["status"]["over"]:
            return seen
        if not legal["to_act"] or current["version"] != legal["version"]:
            time.sleep(0.02)
            continue
        command = bot(current["view"], legal, SeededRng(game_id, legal["version"]))
        response = http.post(
            f"/v1/games/{game_id}/commands",
            json={"command": command, "command_id": uuid.uuid4().hex},
            headers={**auth(token), "If-Match": f'"{legal["version"]}"'},
        )
        if response.status_code == 409:  # a bot moved in between (Giraffometer): retry
            continue
        assert response.status_code == 200, response.text
        body = response.json()
        seen[body["version"]] = body["view"]
    raise AssertionError("the game did not end in time")


def lobby_entry(http: httpx.Client, game_id: str) -> dict[str, Any]:
    """The game's lobby summary, once the projection has it (it trails by milliseconds)."""
    for _ in range(100):
        games = http.get("/v1/games", params={"limit": 200}).json()["games"]
        found = [g for g in games if g["game_id"] == game_id]
        if found:
            return dict(found[0])
        time.sleep(0.05)
    raise AssertionError(f"{game_id} is not in the lobby")

"""Live events over Server-Sent Events: woken by the game's Redis stream, filled by the
engine (which redacts for the caller), resumable from Last-Event-ID (= version)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request
from sse_starlette.sse import EventSourceResponse

from gateway.clients import Clients
from services.core.engine_client import EngineClient


def event_stream(
    c: Clients, engine: EngineClient, request: Request, game_id: str, seat: int, after: int
) -> EventSourceResponse:
    return EventSourceResponse(
        _frames(c, engine, request, game_id, seat, after),
        ping=int(c.settings.sse_heartbeat_s),
    )


async def _frames(
    c: Clients, engine: EngineClient, request: Request, game_id: str, seat: int, last: int
) -> AsyncIterator[dict[str, Any]]:
    key = c.store.keys.game(game_id)
    while not await request.is_disconnected():
        version, events = await engine.events(game_id, seat, last, 200)
        for event in events:
            last = event["version"]
            yield {"id": str(last), "event": event["type"], "data": json.dumps(event)}
        if events and events[-1]["type"] == "GameEnded" and last >= version:
            return
        if not events:
            # Block until the game's stream grows past what was sent (or a heartbeat).
            await c.store.redis.xread({key: f"{last}-0"}, count=1, block=1000)

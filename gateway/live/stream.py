"""The live routes' answer: a game's (or a tournament's) stream for one caller, from the
gateway's LiveHub, within the admission limits."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from starlette.background import BackgroundTask
from starlette.responses import StreamingResponse

from gateway.accounts.tokens import Caller
from gateway.live.formats import Format, media_type, shaped
from gateway.live.hub import LiveHub


def event_stream(
    c: Any,
    request: Any,
    game_id: str,
    game_type: str,
    who: Caller,
    after: int,
    views: bool = False,
    fmt: Format = "sse",
) -> StreamingResponse:
    """The SSE answer of a stream route (``c``: the gateway's Clients). A plain streaming
    answer of pre-encoded frames: sse-starlette's per-frame machinery (an event object,
    a lock, a task group per stream) cost more CPU than the frames themselves."""
    hub: LiveHub = c.live
    release = hub.admit(request.state.client_address)

    async def frames() -> AsyncIterator[bytes]:
        try:
            async for f in hub.frames(game_id, game_type, who, after, views):
                yield f
        finally:
            release()

    return StreamingResponse(
        shaped(frames(), fmt),
        media_type=media_type(fmt),
        headers={"X-Accel-Buffering": "no"},
        background=BackgroundTask(release),
    )

"""The live routes' answer: a game's (or a tournament's) stream for one caller, from the
gateway's LiveHub, within the admission limits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from starlette.background import BackgroundTask
from starlette.responses import StreamingResponse
from starlette.types import Receive, Send

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


async def relay(
    frames: AsyncGenerator[bytes, None],
    headers: list[tuple[bytes, bytes]],
    receive: Receive,
    send: Send,
) -> None:
    """A stream's frames sent straight to the server until they end or the client goes
    (gateway.games.stream_fast_path). One task hears the client go, as in StreamingResponse,
    without its task group, cancel scopes and per-frame wrappers: what an idle stream held
    and every frame crossed."""
    me = asyncio.current_task()
    assert me is not None
    gone = False

    async def hang_up() -> None:
        nonlocal gone
        while (await receive())["type"] != "http.disconnect":
            pass
        gone = True
        me.cancel()  # the stream waits on its queue (or a send): it ends there

    listener = asyncio.create_task(hang_up())
    try:
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        async for chunk in frames:
            if gone:  # the cancel was swallowed on its way (a presence write's Redis call
                break  # took it for its own): the next frame or ping ends the stream
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        else:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    except asyncio.CancelledError:
        if not gone:
            raise  # the server's own (a shutdown): not ours to swallow
    finally:
        if gone and me.cancelling():
            me.uncancel()
        listener.cancel()
        await frames.aclose()

"""The live routes' answer: a game's (or a tournament's) stream for one caller, from the
gateway's LiveHub, within the admission limits."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncGenerator, Callable
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from gateway.accounts.tokens import Caller
from gateway.live.formats import Format, media_type, shaped
from gateway.live.hub import LiveHub

# Where the app (gateway.app.RaffeApp) lets a stream's answer leave a body to run once the
# request's middlewares have returned (a list in the request's scope, when it offers one).
BODIES = "raffe.stream_bodies"


class LiveStream(Response):
    """A stream's answer: its frames as they come, until the stream or the client ends.

    Its head (status and headers) goes out through the middlewares, which add theirs
    (CORS, the guard's request id and safety headers) and count the request as answered;
    its body, which may run for hours, is then run by the app outside them
    (``BODIES``): a frame crosses no middleware's ``send`` wrapper, and the stream holds
    none of their coroutine frames and closures for its hours (decision 0060).

    Starlette's StreamingResponse (ASGI 2.3, as uvicorn speaks) runs each answer in an
    anyio task group with a second task that listens for the client's hang-up: with
    streams that sit idle for hours, that machinery was ~6 of a stream's 44 KiB. This
    answer has one small task listening, which cancels the stream's task when the client
    goes. The frame loop also looks at that listener before each frame: a cancel
    swallowed on its way (a library catching CancelledError) would otherwise leave a
    stream running for a client that is gone, as uvicorn drops writes to it silently."""

    def __init__(
        self, frames: AsyncGenerator[bytes, None], media: str, release: Callable[[], None]
    ) -> None:
        # No headers of its own (they are the same for every stream of a media type: a
        # list of them a stream, kept for hours, was ~0.4 KiB of its memory).
        self.frames, self.release = frames, release
        self.status_code, self.media, self.background = 200, media, None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            start = {"type": "http.response.start", "status": 200, "headers": head(self.media)}
            await send(start)
        except BaseException:
            await self.abandon()
            raise
        bodies = scope.get(BODIES)
        if bodies is not None:
            bodies.append(self)  # run by the app once the middlewares have returned
        else:
            await self.run(receive, send)

    async def run(self, receive: Receive, send: Send) -> None:
        """The frames until the stream or the client ends (``send``: the server's own,
        when run by the app)."""
        task = asyncio.current_task()
        assert task is not None
        hearing = asyncio.create_task(_hang_up(receive, task))
        try:
            async for chunk in self.frames:
                if hearing.done():
                    break
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            else:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except asyncio.CancelledError:
            if not hearing.done():
                raise  # not the client's hang-up: the server's own cancellation
        finally:
            heard = hearing.done()
            hearing.cancel()
            await self.abandon()
            if heard and task.cancelling():
                task.uncancel()  # the hang-up's cancel is spent: the request ends cleanly

    async def abandon(self) -> None:
        """Close the frames (their cleanup runs now, not when collected) and release the
        stream's admission; once or more."""
        await self.frames.aclose()
        self.release()


@functools.cache
def _head(media: str) -> tuple[tuple[bytes, bytes], ...]:
    """As Starlette writes a response's headers (a text type in UTF-8), with no length:
    the body is as long as the stream lives. Proxies are asked not to buffer it."""
    kind = f"{media}; charset=utf-8" if media.startswith("text/") else media
    return (
        (b"content-type", kind.encode("latin-1")),
        (b"x-accel-buffering", b"no"),
        (b"cache-control", b"no-cache"),
    )


def head(media: str) -> list[tuple[bytes, bytes]]:
    """A stream's headers (a list of its own: a middleware may add to it)."""
    return list(_head(media))


async def _hang_up(receive: Receive, stream: asyncio.Task[Any]) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    stream.cancel()


def event_stream(
    c: Any,
    request: Any,
    game_id: str,
    game_type: str,
    who: Caller,
    after: int,
    views: bool = False,
    fmt: Format = "sse",
) -> LiveStream:
    """The answer of a stream route (``c``: the gateway's Clients), pre-encoded frames."""
    hub: LiveHub = c.live
    release = hub.admit(request.state.client_address)
    frames = hub.frames(game_id, game_type, who, after, views)
    # SSE as the hub frames it: no generator layer a frame (only programs ask for NDJSON).
    return LiveStream(frames if fmt == "sse" else shaped(frames, fmt), media_type(fmt), release)

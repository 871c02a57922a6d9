"""A live stream's two shapes (docs/bot-api.md), the client's choice: Server-Sent Events
(``text/event-stream``, what browsers' EventSource reads) or new-line delimited JSON
(``application/x-ndjson``, what programs read line by line). An NDJSON line is
``{"event": <type>, "id": <resume id or null>, "data": <the frame's JSON>}``; a heartbeat
is an empty line. Frames are made once as SSE and turned into lines per stream: only
programs ask for NDJSON, and a turn costs a few byte operations."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Literal

from fastapi import Request

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"
Format = Literal["sse", "ndjson"]


def chosen(request: Request, asked: Format | None) -> Format:
    """``format=`` if given, else what the Accept header prefers (SSE by default)."""
    if asked is not None:
        return asked
    return "ndjson" if NDJSON in request.headers.get("accept", "") else "sse"


def media_type(fmt: Format) -> str:
    return NDJSON if fmt == "ndjson" else SSE


def sse_frame(event: str, data: bytes, frame_id: str = "") -> bytes:
    head = b"id: %s\n" % frame_id.encode() if frame_id else b""
    return head + b"event: %s\ndata: %s\n\n" % (event.encode(), data)


def as_lines(chunk: bytes) -> bytes:
    """SSE frames (one or more, whole) as NDJSON lines."""
    out = []
    for block in chunk.split(b"\n\n"):
        if not block:
            continue
        event, frame_id, data = b"message", b"null", b""
        for line in block.split(b"\n"):
            field, _, value = line.partition(b": ")
            if field == b"event":
                event = value
            elif field == b"id":
                frame_id = b'"%s"' % value
            elif field == b"data":
                data = value
        if data:
            out.append(b'{"event":"%s","id":%s,"data":%s}\n' % (event, frame_id, data))
        elif block.startswith(b":"):
            out.append(b"\n")  # a heartbeat (or a comment): an empty line
    return b"".join(out)


async def shaped(frames: AsyncGenerator[bytes, None], fmt: Format) -> AsyncGenerator[bytes, None]:
    """The stream's SSE chunks in the chosen shape (closing ``frames`` when closed)."""
    try:
        async for chunk in frames:
            if fmt == "sse":
                yield chunk
            else:
                lines = as_lines(chunk)
                if lines:
                    yield lines
    finally:
        await frames.aclose()

"""A minimal HTTP/1.1 client on asyncio protocols, for load generators that must not be
the bottleneck: each request is one pre-built write, an answer is parsed by its
Content-Length, and a Server-Sent Events stream (chunked) is scanned for its ``id:``
lines. httpx spent about 2.9 ms of CPU per move in the earlier load generator; this
spends a small fraction of that (bench.players reports its CPU per request).

Only what Raffe's gateway and the baseline send back is understood: keep-alive answers
with Content-Length, and chunked event streams. Loopback only."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from typing import Any


class Conn(asyncio.Protocol):
    """One keep-alive connection; one request at a time."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.waiter: asyncio.Future[tuple[int, bytes]] | None = None
        self.transport: asyncio.Transport | None = None
        self.address = ("127.0.0.1", 80)

    @classmethod
    async def open(cls, host: str, port: int) -> Conn:
        _, conn = await asyncio.get_running_loop().create_connection(cls, host, port)
        conn.address = (host, port)
        return conn

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is duck-typed

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        self._try_answer()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if self.waiter and not self.waiter.done():
            self.waiter.set_exception(ConnectionError("connection closed"))

    def _try_answer(self) -> None:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0 or self.waiter is None:
            return
        head = bytes(self.buffer[:end])
        length_at = head.lower().find(b"content-length:")
        length = int(head[length_at + 15 : head.find(b"\r\n", length_at)]) if length_at >= 0 else 0
        if len(self.buffer) < end + 4 + length:
            return
        body = bytes(self.buffer[end + 4 : end + 4 + length])
        del self.buffer[: end + 4 + length]
        status = int(head[9:12])
        waiter, self.waiter = self.waiter, None
        if not waiter.done():  # cancelled meanwhile (a load generator stopping)
            waiter.set_result((status, body))

    async def request(self, raw: bytes) -> tuple[int, bytes]:
        """The answer; a keep-alive connection the server closed is opened again."""
        if self.transport is None or self.transport.is_closing():
            loop = asyncio.get_running_loop()
            self.buffer.clear()
            await loop.create_connection(lambda: self, *self.address)
        assert self.transport is not None
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(raw)
        return await self.waiter

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


def build(method: str, path: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    if body or method == "POST":
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


FRAME_ID = re.compile(rb"\nid: ?(\d+)\r?\n")


class SseConn(asyncio.Protocol):
    """A live stream: calls ``on_id(version, perf_counter())`` for each frame's id."""

    def __init__(self, on_id: Callable[[int, Any], None], request: bytes) -> None:
        self.on_id, self.request = on_id, request
        self.tail = b""
        self.transport: asyncio.Transport | None = None
        self.answered = False
        self.refused = False  # answered with anything but 200 (a cap, an error)

    @classmethod
    async def open(
        cls,
        host: str,
        port: int,
        path: str,
        headers: dict[str, str],
        on_id: Callable[[int, Any], None],
    ) -> SseConn:
        request = build("GET", path, {**headers, "Accept": "text/event-stream"})
        loop = asyncio.get_running_loop()
        _, conn = await loop.create_connection(lambda: cls(on_id, request), host, port)
        return conn

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is duck-typed
        transport.write(self.request)  # type: ignore[attr-defined]

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if not self.answered:
            self.answered, self.refused = True, not data.startswith(b"HTTP/1.1 200")
        text = self.tail + data
        end = 0
        for found in FRAME_ID.finditer(text):
            self.on_id(int(found.group(1)), now)
            end = found.end()
        self.tail = text[max(end, len(text) - 32) :]

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

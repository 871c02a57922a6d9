"""The load generator's one-write transport (bench.onewrite), against a real loopback
server: httpx writes a POST's headers and body separately; through OneWriteStream each
request is one write to the socket, and responses read as before."""

from __future__ import annotations

import asyncio
from typing import Any

import httpcore
import httpx
import pytest

from bench import onewrite

RESPONSE = b'HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\n{"ok":true}'


class Server(asyncio.Protocol):
    """Answers each complete request (Content-Length bodies) with RESPONSE."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport, self.buffer = transport, b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, _, body = self.buffer.partition(b"\r\n\r\n")
            fields = dict(line.split(b": ", 1) for line in head.split(b"\r\n")[1:])
            length = int(fields.get(b"content-length", b"0"))
            if len(body) < length:
                return
            self.buffer = body[length:]
            self.transport.write(RESPONSE)


class Counted(httpcore.AsyncNetworkStream):
    """The real socket stream, noting the size of each write that reaches it."""

    def __init__(self, inner: httpcore.AsyncNetworkStream, writes: list[int]) -> None:
        self.inner, self.writes = inner, writes

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        self.writes.append(len(buffer))
        await self.inner.write(buffer, timeout)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        return await self.inner.read(max_bytes, timeout)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


def count_writes(monkeypatch: pytest.MonkeyPatch, one_write: bool) -> list[int]:
    """The sizes of the writes reaching the sockets, with or without OneWriteStream."""
    writes: list[int] = []
    original = httpcore.AnyIOBackend.connect_tcp

    async def connect(self: Any, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        return Counted(await original(self, *args, **kwargs), writes)

    monkeypatch.setattr(httpcore.AnyIOBackend, "connect_tcp", connect)
    if not one_write:
        monkeypatch.setattr(onewrite, "OneWriteStream", lambda stream: stream)
    return writes


async def post(count: int) -> list[httpx.Response]:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Server, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    transport = onewrite.one_write_transport(httpx.Limits(max_connections=2))
    body = {"command": {"type": "play", "cards": ["R7"] * 40}, "command_id": "c"}
    try:
        async with httpx.AsyncClient(base_url=url, transport=transport) as http:
            return [await http.post("/commands", json=body) for _ in range(count)]
    finally:
        server.close()
        await server.wait_closed()


@pytest.mark.parametrize("one_write", [True, False])
def test_a_request_with_a_body_is_one_write_only_through_one_write_stream(
    monkeypatch: pytest.MonkeyPatch, one_write: bool
) -> None:
    writes = count_writes(monkeypatch, one_write)
    responses = asyncio.run(post(10))
    assert [r.status_code for r in responses] == [200] * 10
    assert all(r.json() == {"ok": True} for r in responses)
    if one_write:
        assert len(writes) == 10
    else:  # httpx itself writes the headers and the body apart (and an empty end of message)
        assert len(writes) >= 20

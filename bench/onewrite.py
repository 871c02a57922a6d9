"""An httpx transport whose connections send each request in one write, as browsers,
curl and Go's net/http do with a small body. httpx writes a POST's headers, its body and
an empty end of message apart: three trips through anyio and the socket for the load
generator (~0.25 ms a command here) and two reads, two wake-ups, for the server, for
commands only, since the baselines' requests have no body. The bytes on the wire are
the same.

The ``timeout`` parameters are httpcore's interface (hence the noqa ASYNC109s)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import httpcore
import httpx


class OneWriteStream(httpcore.AsyncNetworkStream):
    """Holds what is written until the next read: HTTP/1.1 writes a whole request, then
    reads its response, so every request leaves in one send."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self.inner = inner
        self.pending: list[bytes] = []

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        self.pending.append(buffer)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        await self._flush(timeout)
        return await self.inner.read(max_bytes, timeout)

    async def _flush(self, timeout: float | None) -> None:  # noqa: ASYNC109
        if self.pending:
            data = b"".join(self.pending)
            self.pending.clear()
            await self.inner.write(data, timeout)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def start_tls(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        await self._flush(None)
        return OneWriteStream(await self.inner.start_tls(*args, **kwargs))

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class OneWriteBackend(httpcore.AsyncNetworkBackend):
    def __init__(self) -> None:
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self.inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return OneWriteStream(stream)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        return OneWriteStream(await self.inner.connect_unix_socket(path, timeout, socket_options))

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def one_write_transport(limits: httpx.Limits) -> httpx.AsyncHTTPTransport:
    """httpx's own transport, its connection pool built on OneWriteBackend."""
    transport = httpx.AsyncHTTPTransport(limits=limits)
    # httpx builds the pool itself and offers no backend option: swap it for the same
    # pool on our backend (checked, so a different httpx fails here, not silently).
    if not isinstance(transport._pool, httpcore.AsyncConnectionPool):
        raise RuntimeError("httpx's transport changed: OneWriteBackend cannot be installed")
    transport._pool = httpcore.AsyncConnectionPool(
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=OneWriteBackend(),
    )
    return transport

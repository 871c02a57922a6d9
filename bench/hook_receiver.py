"""A webhook receiver for benchmarks, in a process of its own so that the load generator's
process is not what delays deliveries: an asyncio HTTP/1.1 server (connections kept
open, as webhook hosts keep them) that answers 200 at once and writes each delivery's
``Raffe-Delivery`` with when it arrived (CLOCK_MONOTONIC, the same clock in every process
of the machine) to a file, a line each.

    python -m bench.hook_receiver OUT      # prints its port, then serves until killed
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import TextIO

OK = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"


class Receiver(asyncio.Protocol):
    def __init__(self, out: list[str]) -> None:
        self.out, self.buffer = out, b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            head = self.buffer[:head_end].decode("latin-1")
            fields = {}
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
            size = int(fields.get("content-length", "0"))
            if len(self.buffer) < head_end + 4 + size:
                return  # the body is still coming
            self.buffer = self.buffer[head_end + 4 + size :]
            self.out.append(f"{fields.get('raffe-delivery', '')} {time.monotonic()}\n")
            self.transport.write(OK)  # type: ignore[attr-defined]


async def serve(file: TextIO) -> None:
    out: list[str] = []
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Receiver(out), "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    while True:  # written in batches: a write per delivery would cost more than it
        await asyncio.sleep(0.2)
        if out:
            file.write("".join(out))  # a local file, a few KB: not worth a thread
            file.flush()
            out.clear()


if __name__ == "__main__":
    with open(sys.argv[1], "a") as written:
        asyncio.run(serve(written))

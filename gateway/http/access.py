"""The gateway's access log: one JSON line per request, in the format of every other log
line (services.core.logs), written in batches: a line through the logging module and a
write per request showed in the gateway's CPU per command (docs/decisions, "batched
access log"), so lines are encoded with orjson and flushed every
``every_s`` or ``batch`` lines, and when the gateway stops."""

from __future__ import annotations

import asyncio
import atexit
import sys
import time
from typing import Any, BinaryIO

import orjson

from services.core.logs import timestamp


class AccessLog:
    def __init__(self, out: BinaryIO | None = None, every_s: float = 0.5, batch: int = 256):
        self.out = out or sys.stderr.buffer
        self.every_s, self.batch = every_s, batch
        self.pending: list[bytes] = []
        self._flushing: asyncio.TimerHandle | None = None
        atexit.register(self.flush)  # the last lines when the gateway stops

    def request(self, request_id: str, **fields: Any) -> None:
        line = {
            "time": timestamp(time.time()),
            "level": "info",
            "logger": "access",
            "message": "request",
            "request_id": request_id,
            **fields,
        }
        self.pending.append(orjson.dumps(line))
        if len(self.pending) >= self.batch:
            self.flush()
        elif self._flushing is None:
            self._flushing = asyncio.get_running_loop().call_later(self.every_s, self.flush)

    def flush(self) -> None:
        if self._flushing is not None:
            self._flushing.cancel()
            self._flushing = None
        if self.pending:
            self.out.write(b"\n".join(self.pending) + b"\n")
            self.out.flush()
            self.pending = []

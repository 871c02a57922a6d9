"""Running a service's main coroutine on uvloop.

Every Raffe process is an asyncio program whose CPU goes largely to the event loop and
socket I/O (gRPC, Redis, HTTP); uvloop, a libuv loop, cuts that share (measured in
docs/performance.md). uvicorn picks uvloop and httptools by itself when installed."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

import uvloop

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    return uvloop.run(main)

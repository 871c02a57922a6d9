"""Running a service's main coroutine on uvloop.

Every Raffe process is an asyncio program whose CPU goes largely to the event loop and
socket I/O (gRPC, Redis, HTTP); uvloop, a libuv loop, cuts that share (docs/decisions,
"lean runtime"). uvicorn picks uvloop and httptools by itself when installed; its
entry points call tune_gc themselves."""

from __future__ import annotations

import gc
from collections.abc import Coroutine
from typing import Any, TypeVar

import uvloop

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    tune_gc()
    return uvloop.run(main)


def tune_gc() -> None:
    """Fewer cyclic collections: every request allocates thousands of short-lived
    objects (protobuf, JSON, dicts) that reference counting frees; the default
    threshold of 700 ran a generation-0 collection every few requests (a visible share of
    an engine's profile). Objects alive at startup are frozen out
    of scans."""
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)

"""Taking what a queue holds together: both ends of a command lane write one message for
everything ready at once (services.core.transport.lanes, services.core.engine_service)."""

from __future__ import annotations

import asyncio
from typing import TypeVar

T = TypeVar("T")


async def together(queue: asyncio.Queue[T | None]) -> list[T] | None:
    """The next item and every other one queued with it; None once the queue's end (a
    None, queued after everything else) is reached: the items before it come first."""
    first = await queue.get()
    if first is None:
        return None
    ready = [first]
    while not queue.empty():
        item = queue.get_nowait()
        if item is None:
            queue.put_nowait(None)  # seen at the next call
            break
        ready.append(item)
    return ready

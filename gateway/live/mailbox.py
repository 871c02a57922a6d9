"""A viewer's frames on their way to its stream: the part of asyncio.Queue a stream uses
(one producer side, one consumer), in a fraction of its memory.

An asyncio.Queue holds three deques and an Event with a fourth (~2.7 KiB, most of it
empty blocks), and a gateway holds one per stream for hours: that was a tenth of an idle
stream's memory (docs/decisions/0058). A Mailbox is a list, a read position and, while
its stream waits, one future."""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

T = TypeVar("T")
COMPACT_AT = 1024  # items read before the list drops them (when never emptied)


class Mailbox(Generic[T]):
    __slots__ = ("_head", "_items", "_waiter", "maxsize")

    def __init__(self, maxsize: int) -> None:
        self._items: list[T] = []
        self._head = 0
        self._waiter: asyncio.Future[None] | None = None
        self.maxsize = maxsize

    def qsize(self) -> int:
        return len(self._items) - self._head

    def empty(self) -> bool:
        return self._head >= len(self._items)

    def put_nowait(self, item: T) -> None:
        """Add ``item``, waking the stream; asyncio.QueueFull when ``maxsize`` wait."""
        if self.qsize() >= self.maxsize:
            raise asyncio.QueueFull
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def get_nowait(self) -> T:
        if self.empty():
            raise asyncio.QueueEmpty
        item = self._items[self._head]
        self._head += 1
        if self._head == len(self._items):
            self._items.clear()
            self._head = 0
        elif self._head >= COMPACT_AT:
            del self._items[: self._head]
            self._head = 0
        return item

    async def get(self) -> T:
        """The next item, waiting for one (one reader at a time: a stream's own)."""
        while self.empty():
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self.get_nowait()

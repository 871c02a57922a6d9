"""Heartbeats and presence marks for every stream of a gateway, on one clock.

A stream used to wait on its own timer: a ping after a heartbeat of quiet and, for a
seat, a presence mark refreshed in Redis (two ZADDs) at each heartbeat. 50,000 idle
streams were 50,000 timers and 100,000 Redis commands a heartbeat. Here one task
visits the streams in ``SLICES`` slices, one slice every ``heartbeat_s / SLICES``, so
each stream is visited once a heartbeat:

- a stream sent nothing since its last visit gets a ping (queued only if its queue is
  empty), so a quiet stream carries a byte at least every two heartbeats, a busy one
  none;
- the slice's presence marks are refreshed in one command per 1,000 streams
  (services.core.presence ``refreshed_all``: the sweeper's list, which is what tells
  whether a stream is open).

A stream is added when it opens and discarded when it ends; its token's expiry is a
single timer of its own (gateway.live.watched ``ends_at_expiry``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from redis.exceptions import RedisError

from gateway.live.watched import Viewer
from services.core.presence import Mark, Presence

log = logging.getLogger(__name__)
SLICES = 10  # a slice's visit every heartbeat / SLICES: marks spread over the heartbeat


class Beats:
    def __init__(self, heartbeat_s: float, presence: Presence | None = None) -> None:
        self.heartbeat_s, self.presence = heartbeat_s, presence
        self.slices: list[dict[Viewer, Mark | None]] = [{} for _ in range(SLICES)]
        self._slice_of: dict[Viewer, int] = {}
        self._turn = 0  # the slice the next stream joins: round robin
        self._task: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._slice_of)

    def add(self, viewer: Viewer, mark: Mark | None = None) -> None:
        """A stream to beat for; ``mark``: its seat's presence mark, refreshed at each
        visit."""
        index, self._turn = self._turn, (self._turn + 1) % SLICES
        self.slices[index][viewer] = mark
        self._slice_of[viewer] = index
        viewer.sent = True  # no ping at a first visit that comes at once

    def discard(self, viewer: Viewer) -> None:
        index = self._slice_of.pop(viewer, None)
        if index is not None:
            self.slices[index].pop(viewer, None)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        """A slice every heartbeat / SLICES, on a schedule that does not drift: a late
        visit (a busy loop, a slow Redis) is followed by the next one sooner."""
        loop = asyncio.get_running_loop()
        step = self.heartbeat_s / SLICES
        due, index = loop.time() + step, 0
        while True:
            await asyncio.sleep(max(0.0, due - loop.time()))
            try:
                await self.visit(index)
            except Exception as error:  # never let the one clock stop: log, beat on
                log.error("heartbeat failed", exc_info=error)
            index = (index + 1) % SLICES
            due = max(due + step, loop.time())

    async def visit(self, index: int) -> None:
        """One slice: pings to its quiet streams, its presence marks refreshed."""
        marks: list[Mark] = []
        for viewer, mark in list(self.slices[index].items()):
            if not viewer.sent:
                viewer.ping()
            viewer.sent = False
            if mark is not None:
                marks.append(mark)
        if marks and self.presence is not None:
            try:
                await self.presence.refreshed_all(marks)
            except RedisError as error:  # shown late, not lost: the next visit writes it
                log.warning("presence not refreshed", extra={"error": str(error)})

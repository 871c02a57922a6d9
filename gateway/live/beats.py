"""One clock for every game stream a gateway holds (docs/decisions/0058): it pings the
streams that have been quiet, ends those whose token expired, and refreshes the
presence marks of all seat streams in a few Redis calls.

A stream used to do this itself: a timeout around each wait on its queue, a ping when
it fired, and two ZADDs for its mark. At turn-based pace most streams are idle, so that
was the gateway's work: ~10x a minimal SSE server's CPU per idle stream and heartbeat,
and a Redis round trip per stream per heartbeat. Now a quiet stream costs a ping on its
queue per heartbeat and a member in one batched ZADD; a busy one gets no ping at all.

The clock ticks twice per heartbeat and pings a stream quiet for three quarters of one,
so an idle stream gets a ping every heartbeat and no stream is quiet for more than 1.25
heartbeats. Marks are refreshed once per heartbeat (the sweeper takes a mark three
heartbeats old for a stopped gateway's)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from redis.exceptions import RedisError

from gateway.live.frames import PING
from gateway.live.watched import Viewer
from services.core.presence import Presence

log = logging.getLogger(__name__)
QUIET = 0.75  # of a heartbeat: a stream quiet this long gets a ping at the next tick


class Beats:
    def __init__(
        self,
        heartbeat_s: float,
        viewers: Callable[[], Iterable[Viewer]],
        presence: Presence | None,
        reopen: Callable[[Viewer], Coroutine[Any, Any, None]],
    ) -> None:
        """``viewers``: every game stream held here now; ``reopen``: opens a stream's
        presence again when the sweeper closed it (this gateway was frozen)."""
        self.heartbeat_s, self.viewers = heartbeat_s, viewers
        self.presence, self.reopen = presence, reopen
        self.ticks = 0

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_s / 2)
            try:
                await self.tick()
            except Exception as error:  # never let the one clock stop: log, tick again
                log.error("stream beats failed", exc_info=error)

    async def tick(self) -> None:
        """Ping the quiet, end the expired; every other tick, refresh the marks."""
        self.ticks += 1
        quiet_since = time.monotonic() - QUIET * self.heartbeat_s
        now = time.time()
        marked: list[Viewer] = []
        for viewer in list(self.viewers()):
            if viewer.expires_at and viewer.expires_at <= now:
                viewer.end()  # its token expired: so does its stream
                continue
            if viewer.pushed_at <= quiet_since:
                viewer.push([(PING, False)])
            if viewer.mark:
                marked.append(viewer)
        if self.presence is not None and marked and self.ticks % 2 == 0:
            await self.refresh(self.presence, marked)

    async def refresh(self, presence: Presence, viewers: list[Viewer]) -> None:
        """Their marks say now; those the sweeper closed meanwhile are opened again.
        Redis failing must not stop the clock (the marks go stale, the sweeper shows
        the seats away, and the next refresh opens them again)."""
        streams = [(v.game_id, v.seat, v.mark) for v in viewers]
        try:
            missing = set(await presence.refreshed(streams))
            for viewer in viewers:
                if viewer.mark and (viewer.game_id, viewer.seat, viewer.mark) in missing:
                    await self.reopen(viewer)
        except RedisError as error:
            log.warning("presence marks not refreshed", extra={"error": str(error)})

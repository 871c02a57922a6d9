"""The account streams this gateway holds (docs/bot-api.md), by player: the hub's
listener hears ``<prefix>:feed`` (a player's feed grew, services.accounts.feed) and wakes
that player's streams, which then read their feed from where they are. A stream is a
Viewer like a game's, so a revoked token and a draining gateway end it the same way.

One stream at a time per bot account: a lock in Redis (``<prefix>:feed-lock:<player>``)
taken as the stream opens, renewed at each heartbeat, released as it ends; a gateway
that dies leaves it to expire after three heartbeats."""

from __future__ import annotations

import math
import uuid
from collections import defaultdict

from redis.asyncio import Redis, RedisCluster

from gateway.http.problems import Problem
from gateway.live.watched import Viewer
from services.core.partitions import RELEASE_LUA, RENEW_LUA  # a lease's, as a partition's

WAKE = (b"", False)  # a frame of nothing: the stream reads its feed again


class AccountFeeds:
    def __init__(self) -> None:
        self.waiting: dict[str, set[Viewer]] = defaultdict(set)

    def add(self, viewer: Viewer) -> None:
        self.waiting[viewer.player_id].add(viewer)

    def remove(self, viewer: Viewer) -> None:
        found = self.waiting.get(viewer.player_id)
        if found is not None:
            found.discard(viewer)
            if not found:
                del self.waiting[viewer.player_id]

    def woken(self, player_id: str) -> None:
        """The player's feed grew (on any gateway): their streams here read it."""
        for viewer in self.waiting.get(player_id, ()):
            if viewer.queue.empty():  # one wake is enough: the stream reads all there is
                viewer.push([WAKE])

    def wake_all(self) -> None:
        """After the listener resubscribed: a wake may have been missed."""
        for player_id in list(self.waiting):
            self.woken(player_id)

    def end_all(self, last: bytes) -> None:
        for viewers in self.waiting.values():
            for viewer in list(viewers):
                viewer.end(last)


class StreamLock:
    """One account stream at a time for a bot account, across gateways."""

    def __init__(self, redis: Redis | RedisCluster, prefix: str, player_id: str, ttl_s: float):
        self.redis, self.key = redis, f"{prefix}:feed-lock:{player_id}"
        self.owner, self.ttl_ms = uuid.uuid4().hex, int(ttl_s * 1000)

    async def take(self) -> None:
        """Taken, or 429 ``bot_streams`` with the seconds until the other one's lapses."""
        if await self.redis.set(self.key, self.owner, nx=True, px=self.ttl_ms):
            return
        left_ms = int(await self.redis.pttl(self.key))
        raise Problem(
            429,
            "bot_streams",
            "a bot account has one account stream at a time: another is open",
            retry_after=max(1, math.ceil(left_ms / 1000)),
            limit=1,
        )

    async def renew(self) -> None:
        await self.redis.eval(RENEW_LUA, 1, self.key, self.owner, self.ttl_ms)

    async def release(self) -> None:
        await self.redis.eval(RELEASE_LUA, 1, self.key, self.owner)

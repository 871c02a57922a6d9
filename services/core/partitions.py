"""Partition ownership for workers that follow the partition logs (projection, bot
runners): one owner per partition at a time, by a lease with a fencing token.

* A worker takes a free partition with ``SET lease owner NX PX ttl`` and then ``INCR``s
  the partition's fence; every write it makes for that partition checks the fence in
  the same script, so a worker that lost its lease (paused, partitioned) cannot write.
* Live workers heartbeat into a sorted set; each aims at ceil(P / live workers)
  partitions, so two replicas split the partitions and a survivor takes over a dead
  one's partitions once their leases expire.
* A worker holding fewer than floor(P / live workers) is *wanting*: what it should hold
  is still another's (given back at that one's next refresh) or not yet expired. Its
  worker refreshes more often meanwhile (services.core.worker), so partitions handed
  over are followed again within a moment, not a lease period later. The ceiling is
  not the test: with 3 workers and 64 partitions one always holds 21 of a share of 22.
"""

from __future__ import annotations

import math
import time
import uuid
from dataclasses import dataclass, field

from services.core.eventstore import EventStore
from services.core.eventstore.pipelined import run_script_many

RENEW_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
# Every lease a worker holds, renewed in one call (a single node: on a cluster one
# script cannot span the partitions' slots). KEYS: the leases. Per key: 1 renewed, 0 lost.
RENEW_ALL_LUA = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    out[i] = redis.call('PEXPIRE', key, ARGV[2])
  else
    out[i] = 0
  end
end
return out
"""
RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@dataclass
class PartitionLeases:
    """The partitions one worker of a group (e.g. "proj", "bots") owns right now."""

    store: EventStore
    group: str
    ttl_ms: int = 5000
    owner: str = field(default_factory=lambda: uuid.uuid4().hex)
    owned: dict[int, int] = field(default_factory=dict)  # partition -> fencing token
    wanting: bool = False  # fewer than its floor share after the last refresh

    def __post_init__(self) -> None:
        self._renew = self.store.redis.register_script(RENEW_LUA)
        self._renew_all = self.store.redis.register_script(RENEW_ALL_LUA)
        self._release = self.store.redis.register_script(RELEASE_LUA)

    def lease_key(self, p: int) -> str:
        return f"{self.store.keys.tag(p)}:{self.group}:lease"

    def fence_key(self, p: int) -> str:
        return f"{self.store.keys.tag(p)}:{self.group}:fence"

    @property
    def workers_key(self) -> str:
        return f"{self.store.settings.key_prefix}:{self.group}:workers"

    async def refresh(self) -> dict[int, int]:
        """Heartbeat, renew what we hold (in one round trip), drop what we lost, take or
        give back partitions towards a fair share. Returns the partitions owned now and
        their fences."""
        redis, now = self.store.redis, int(time.time() * 1000)
        pipe = redis.pipeline(transaction=False)
        pipe.zadd(self.workers_key, {self.owner: now + self.ttl_ms})
        pipe.zremrangebyscore(self.workers_key, 0, now)
        pipe.zcard(self.workers_key)
        live = max(1, int((await pipe.execute())[-1]))
        share = math.ceil(self.store.settings.partitions / live)
        held = list(self.owned)
        for p, ok in zip(held, await self._renewed(held), strict=True):
            if not ok:
                del self.owned[p]
        while len(self.owned) > share:
            await self.release(max(self.owned))
        await self._take(share)
        self.wanting = len(self.owned) < self.store.settings.partitions // live
        return dict(self.owned)

    async def _renewed(self, held: list[int]) -> list[int]:
        """Each held lease renewed (1) or lost (0), in one call on a single node: an idle
        worker renews every lease a few times a lease period, and 64 script calls a time
        were most of what an idle stack cost Redis (bench.idle)."""
        if not held:
            return []
        keys = [self.lease_key(p) for p in held]
        if self.store.settings.cluster:
            renewals = [([k], [self.owner, self.ttl_ms]) for k in keys]
            return await run_script_many(self.store.redis, self._renew, renewals)
        return list(await self._renew_all(keys=keys, args=[self.owner, self.ttl_ms]))

    async def _take(self, share: int) -> None:
        """Take free partitions, lowest first, until we own ``share``: each round tries
        as many as are missing in one round trip, then numbers the fences of those won."""
        free = [p for p in range(self.store.settings.partitions) if p not in self.owned]
        while free and len(self.owned) < share:
            tried, free = free[: share - len(self.owned)], free[share - len(self.owned) :]
            pipe = self.store.redis.pipeline(transaction=False)
            for p in tried:
                pipe.set(self.lease_key(p), self.owner, nx=True, px=self.ttl_ms)
            won = [p for p, ok in zip(tried, await pipe.execute(), strict=True) if ok]
            if not won:
                continue
            pipe = self.store.redis.pipeline(transaction=False)
            for p in won:
                pipe.incr(self.fence_key(p))
            for p, fence in zip(won, await pipe.execute(), strict=True):
                self.owned[p] = int(fence)

    async def release(self, p: int) -> None:
        await self._release(keys=[self.lease_key(p)], args=[self.owner])
        self.owned.pop(p, None)

    async def release_all(self) -> None:
        for p in list(self.owned):
            await self.release(p)
        await self.store.redis.zrem(self.workers_key, self.owner)

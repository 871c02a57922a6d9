"""Readiness: whether a process can do its work now, which is not whether it is alive.

Every service needs Redis: a Readiness pings it every ``every_s`` and says so (a gRPC
health service ``raffe.ready`` on engines and the projection; ``/readyz`` on the metrics
port of the runners; the gateway's ``/readyz`` also asks its engines). Liveness stays
the process answering at all, so a Redis outage takes pods out of their Services
without restarting every one of them (deploy/k8s: readiness and liveness probes)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from prometheus_client import Gauge
from redis.asyncio import Redis, RedisCluster
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
READY_SERVICE = "raffe.ready"  # the gRPC health service name readiness probes ask
READY = Gauge("raffe_ready", "1 while this process reaches Redis (its readiness)")
# Redis's memory as this process last read it (INFO memory; deploy/monitoring alerts on
# it nearing maxmemory: Raffe's Redis must never evict).
MEMORY_USED = Gauge("raffe_redis_memory_used_bytes", "Redis used_memory")
MEMORY_MAX = Gauge("raffe_redis_memory_max_bytes", "Redis maxmemory (0: no limit)")
MEMORY_EVERY = 8  # checks between two reads of Redis's memory


class Readiness:
    def __init__(
        self, redis: Redis | RedisCluster, every_s: float = 2.0, timeout_s: float = 1.0
    ) -> None:
        self.redis, self.every_s, self.timeout_s = redis, every_s, timeout_s
        self.ready = False
        self.checked = False  # whether a check has run
        self.listeners: list[Callable[[bool], Awaitable[None]]] = []

    async def listen(self, listener: Callable[[bool], Awaitable[None]]) -> None:
        """Tell ``listener`` of every change from now on, and of the state now if known."""
        self.listeners.append(listener)
        if self.checked:
            await listener(self.ready)

    async def check(self) -> bool:
        try:
            await asyncio.wait_for(self.redis.ping(), self.timeout_s)
        except (RedisError, OSError, TimeoutError):
            return False
        return True

    async def memory(self) -> None:
        """Redis's used memory and its limit, for the alerts (a cluster: summed)."""
        try:
            info = await asyncio.wait_for(self.redis.info("memory"), self.timeout_s)
        except (RedisError, OSError, TimeoutError):
            return
        nodes = info.values() if "used_memory" not in info else [info]
        found = [n for n in nodes if isinstance(n, dict) and "used_memory" in n]
        MEMORY_USED.set(sum(int(n["used_memory"]) for n in found))
        MEMORY_MAX.set(sum(int(n.get("maxmemory", 0)) for n in found))

    async def run(self) -> None:
        """Check until cancelled; tell the listeners of every change."""
        checks = 0
        while True:
            ready = await self.check()
            READY.set(1 if ready else 0)
            if ready and checks % MEMORY_EVERY == 0:
                await self.memory()
            checks += 1
            if ready != self.ready or not self.checked:
                self.ready, self.checked = ready, True
                log.info("readiness", extra={"ready": ready})
                for listener in self.listeners:
                    with contextlib.suppress(Exception):
                        await listener(ready)
            await asyncio.sleep(self.every_s)

    def start(self) -> asyncio.Task[None]:
        return asyncio.get_running_loop().create_task(self.run())

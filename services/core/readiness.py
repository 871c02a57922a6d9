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

from redis.asyncio import Redis, RedisCluster
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
READY_SERVICE = "raffe.ready"  # the gRPC health service name readiness probes ask


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

    async def run(self) -> None:
        """Check until cancelled; tell the listeners of every change."""
        while True:
            ready = await self.check()
            if ready != self.ready or not self.checked:
                self.ready, self.checked = ready, True
                log.info("readiness", extra={"ready": ready})
                for listener in self.listeners:
                    with contextlib.suppress(Exception):
                        await listener(ready)
            await asyncio.sleep(self.every_s)

    def start(self) -> asyncio.Task[None]:
        return asyncio.get_running_loop().create_task(self.run())

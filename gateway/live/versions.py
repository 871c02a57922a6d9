"""Readers waiting for a version of a game (a view read with ``min_version``): answered
as soon as the version exists, with no polling. A waiter is woken by the version's
announcement, and checks the store before it waits and again whenever the hub's
listener resubscribed (an announcement may have been missed meanwhile), so none is
missed."""

from __future__ import annotations

import asyncio
from collections import defaultdict

from gateway.live.channels import GameChannels
from services.core.eventstore import EventStore


class VersionWaiters:
    def __init__(self, store: EventStore, channels: GameChannels) -> None:
        self.store, self.channels = store, channels
        self.waiting: dict[str, list[tuple[int, asyncio.Future[int]]]] = defaultdict(list)

    async def wait(self, game_id: str, version: int, within_s: float) -> bool:
        """Whether ``version`` of the game exists within ``within_s`` seconds."""
        if await self.store.version(game_id) >= version:
            return True  # the usual case (a client asks for a version it was told of)
        deadline = asyncio.get_running_loop().time() + within_s
        try:
            await self.channels.hold(game_id)
            return await self._wait(game_id, version, deadline)
        finally:
            self.channels.release(game_id)

    async def _wait(self, game_id: str, version: int, deadline: float) -> bool:
        loop = asyncio.get_running_loop()
        while True:
            future: asyncio.Future[int] = loop.create_future()
            entry = (version, future)
            self.waiting[game_id].append(entry)
            try:
                if await self.store.version(game_id) >= version:
                    return True
                async with asyncio.timeout_at(deadline):
                    if await future >= version:
                        return True
            except TimeoutError:
                return False
            finally:
                self._forget(game_id, entry)

    def _forget(self, game_id: str, entry: tuple[int, asyncio.Future[int]]) -> None:
        waiting = self.waiting.get(game_id, [])
        if entry in waiting:
            waiting.remove(entry)
        if not waiting:
            self.waiting.pop(game_id, None)

    def announced(self, game_id: str, version: int) -> None:
        """The game reached ``version``: wake whoever waits for it or an earlier one."""
        for wanted, future in self.waiting.get(game_id, []):
            if wanted <= version and not future.done():
                future.set_result(version)

    def look_again(self) -> None:
        """Announcements may have been missed: every waiter asks the store once more."""
        for waiting in list(self.waiting.values()):
            for _, future in waiting:
                if not future.done():
                    future.set_result(0)

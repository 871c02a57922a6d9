"""One writer per game at a time in this process, for the commands whose version the
engine chooses (ANY_VERSION: the tournament runner's results, an organiser's
registrations, bots and stand-ins).

Such commands are decided on the cached state and appended at its version; two of them
for one game at once both decide on the same version, one append wins and the other
loads again and decides again. Sixteen registrations sent together into one tournament
used to run out of retries that way (#28: bench.tournament_crowd). Queued here, they
follow one another: each decides on the state the one before it left in the cache, so
in one process they never conflict, and the retries are left for writers in other
replicas. A command that pins its version takes no turn: a conflict is its answer."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class Turns:
    """An asyncio lock per game id, kept only while someone holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def turn(self, game_id: str) -> AsyncIterator[None]:
        lock, users = self._locks.setdefault(game_id, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[game_id]

    def __len__(self) -> int:
        return len(self._locks)

"""Appending through a failover, for the replicated store's tests: one game moved on
while its primary is struck, every refusal checked to be a retryable one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from services.core.errors import NotReplicated, store_failure
from services.core.eventstore import EventStore
from tests.eventstore_helpers import append, ev


@dataclass
class ThroughFailover:
    acknowledged: list[int] = field(default_factory=list)
    refused: int = 0
    struck_at: float = 0.0
    back_at: float = 0.0

    @property
    def unavailable_s(self) -> float:
        return self.back_at - self.struck_at


async def append_through(
    store: EventStore,
    game: str,
    moves: int,
    strike: Callable[[], None],
    meanwhile: Callable[[float], None] = lambda since: None,
) -> ThroughFailover:
    """``moves`` acknowledged appends to ``game``, with ``strike`` after the tenth and
    ``meanwhile(seconds since the strike)`` before each try after it (e.g. a node brought
    back). A refusal must be what the engine answers 503 to; the next try is at the
    version the store holds then."""
    seen, version = ThroughFailover(), 0
    started = time.monotonic()
    while len(seen.acknowledged) < moves and time.monotonic() - started < 60:
        if len(seen.acknowledged) == 10 and not seen.struck_at:
            strike()
            seen.struck_at = time.monotonic()
        if seen.struck_at:
            meanwhile(time.monotonic() - seen.struck_at)
        try:
            done = await append(store, game, version, ev("Moved", n=version))
        except Exception as error:
            assert isinstance(error, NotReplicated) or store_failure(error), repr(error)
            seen.refused += 1
            await asyncio.sleep(0.05)
            try:
                version = await store.version(game)
            except Exception as still:
                assert store_failure(still), repr(still)
            continue
        if seen.struck_at and not seen.back_at:
            seen.back_at = time.monotonic()
        seen.acknowledged.append(done.version)
        version = done.version
    assert len(seen.acknowledged) == moves, (seen.acknowledged, seen.refused)
    stored = [e.version for e in await store.read_game(game)]
    assert set(seen.acknowledged) <= set(stored)
    assert stored == list(range(1, len(stored) + 1))  # one history: no gap, no fork
    return seen

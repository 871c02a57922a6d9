"""The presence sweeper (docs/fair-table.md), beside the bot runner: closes the streams a
stopped gateway left open, and when a seat's player has been away past the setting tells
the engine (``seat_gone``), so a bot stands in for them. Any number may run: the engine
command's id is the absence's own, so a seat is marked gone once."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from services.core.errors import RaffeError
from services.core.eventstore import EventStore
from services.core.presence import Presence
from services.core.transport import EngineClient
from services.kernel.game import ENGINE

log = logging.getLogger(__name__)


class Sweeper:
    def __init__(
        self,
        store: EventStore,
        engines: dict[str, EngineClient],
        presence: Presence,
        claim_after_s: int,
        every_s: float = 1.0,
    ) -> None:
        self.store, self.engines, self.presence = store, engines, presence
        self.claim_after_s, self.every_s = claim_after_s, every_s
        self.stopping = asyncio.Event()

    async def run(self) -> None:
        while not self.stopping.is_set():
            try:
                await self.sweep()
            except Exception as error:  # a Redis outage or a bug: log, try again
                log.warning("presence sweep failed", extra={"error": str(error)})
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), self.every_s)

    async def sweep(self) -> None:
        for game_id, seat, stream, mark in await self.presence.stale_streams():
            await self.presence.closed(game_id, seat, stream, mark)
        for game_id, seat, since in await self.presence.gone():
            await self._mark_gone(game_id, seat, since)
            await self.presence.settled(game_id, seat)
            await self.presence.announce(game_id)

    async def _mark_gone(self, game_id: str, seat: int, since: int) -> None:
        meta = await self.store.meta(game_id)
        engine = self.engines.get(meta.game_type) if meta else None
        if engine is None:
            return
        command = {"type": "seat_gone", "seat": seat, "claim_after_s": self.claim_after_s}
        try:
            await engine.execute(game_id, ENGINE, command, f"gone:{game_id}:{seat}:{since}")
        except RaffeError as error:  # over, a bot already, or the seat's player is back
            log.info("seat not marked gone", extra={"game_id": game_id, "code": error.code})

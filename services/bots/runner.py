"""The bot runner: follows the partition logs it owns and, whenever a bot seat must act,
plays it through the engine like any client (DESIGN §2: bots see only the seat's view
and legal commands). It also drives round and turn timers (AL-3): when a game's status
shows a deadline and names the command to send when it passes, the runner sends it.

Several runners share the partitions by leases. A move's command id is derived from the
game, its version and the seat, so a move retried by another runner (after a crash, or
a lost lease) is the same command and never played twice.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from prometheus_client import Counter

from services.bots.registry import bot_for
from services.core.codec import loads
from services.core.engine_client import EngineClient
from services.core.errors import RaffeError
from services.core.eventstore import EventStore, StoredEvent
from services.core.rng import SeededRng
from services.core.worker import PartitionWorker

log = logging.getLogger(__name__)
MOVES = Counter("raffe_bot_moves_total", "Moves played by bots", ["game", "result"])
FENCED_CHECKPOINT = """
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
"""


class BotRunner(PartitionWorker):
    def __init__(
        self, store: EventStore, engines: dict[str, EngineClient], ttl_ms: int = 5000
    ) -> None:
        super().__init__(store, "bots", ttl_ms)
        self.engines = engines
        self.seats: dict[str, list[dict[str, Any]]] = {}  # game -> GameCreated seats
        self._checkpoint = store.redis.register_script(FENCED_CHECKPOINT)

    def _cp_key(self, p: int) -> str:
        return f"{self.store.keys.tag(p)}:bots:cp"

    def _timers_key(self, p: int) -> str:
        return f"{self.store.keys.tag(p)}:bots:timers"

    async def load_checkpoint(self, partition: int) -> int:
        raw = await self.store.redis.get(self._cp_key(partition))
        return int(raw) if raw else 0

    async def handle(self, partition: int, fence: int, events: list[StoredEvent]) -> bool:
        latest: dict[str, StoredEvent] = {}
        for e in events:
            if e.type == "GameCreated":
                self.seats[e.game_id] = loads(e.payload)["seats"]
            latest[e.game_id] = e
        for game_id, e in latest.items():
            await self.act(partition, e.game_type, game_id)
        return bool(
            await self._checkpoint(
                keys=[self._cp_key(partition), self.leases.fence_key(partition)],
                args=[fence, events[-1].position],
            )
        )

    async def _seats_of(self, game_id: str) -> list[dict[str, Any]]:
        if game_id not in self.seats:
            first = await self.store.read_game_range(game_id, 0, 1)
            self.seats[game_id] = loads(first[0].payload)["seats"] if first else []
        return self.seats[game_id]

    async def act(self, partition: int, game_type: str, game_id: str) -> None:
        """Play every bot seat that must act now, until a human must act or it is over."""
        engine = self.engines.get(game_type)
        if engine is None:
            return
        seats = await self._seats_of(game_id)
        for _ in range(1000):  # bounded: each pass plays at least one move or stops
            version, _, status = await engine.view(game_id, -1)
            await self._note_deadline(partition, game_id, status)
            bots = [s for s in status["to_act"] if seats[s]["kind"] == "bot"]
            if status["over"] or not bots:
                if status["over"]:
                    self.seats.pop(game_id, None)
                return
            for seat in bots:
                await self._move(engine, game_type, game_id, seat, seats[seat], version)

    async def _move(
        self,
        engine: EngineClient,
        game_type: str,
        game_id: str,
        seat: int,
        spec: dict[str, Any],
        version: int,
    ) -> None:
        _, view, _ = await engine.view(game_id, seat)
        _, legal = await engine.commands(game_id, seat)
        if not legal.get("to_act"):
            return
        rng = SeededRng(f"{game_id}:{seat}", version)
        command = bot_for(game_type, spec.get("bot_level", ""))(view, legal, rng)
        try:
            await engine.execute(game_id, seat, command, f"bot:{game_id}:{version}:{seat}", 0)
            MOVES.labels(game_type, "ok").inc()
        except RaffeError as error:  # another runner moved first, or the state moved on
            MOVES.labels(game_type, error.code).inc()
            log.info(
                "bot move refused",
                extra={"game_id": game_id, "version": version, "code": error.code},
            )

    async def _note_deadline(self, partition: int, game_id: str, status: dict[str, Any]) -> None:
        deadline = int(status.get("deadline_ms") or 0)
        key = self._timers_key(partition)
        if deadline and not status["over"]:
            await self.store.redis.zadd(key, {game_id: deadline})
        else:
            await self.store.redis.zrem(key, game_id)

    async def tick(self) -> None:
        """Send the deadline command of every owned game whose deadline has passed."""
        now = int(time.time() * 1000)
        for p in list(self.leases.owned):
            due = await self.store.redis.zrangebyscore(self._timers_key(p), 0, now)
            for raw in due:
                await self._expire(p, raw.decode(), now)

    async def _expire(self, partition: int, game_id: str, now: int) -> None:
        meta = await self.store.meta(game_id)
        engine = self.engines.get(meta.game_type) if meta else None
        if engine is None:
            await self.store.redis.zrem(self._timers_key(partition), game_id)
            return
        _, _, status = await engine.view(game_id, -1)
        command = status.get("on_deadline")
        deadline = int(status.get("deadline_ms") or 0)
        if command and deadline and deadline <= now:
            try:
                await engine.execute(game_id, -1, command, f"timer:{game_id}:{deadline}", 0)
            except RaffeError as error:
                log.info("timer command refused", extra={"game_id": game_id, "code": error.code})
        await self._note_deadline(partition, game_id, (await engine.view(game_id, -1))[2])

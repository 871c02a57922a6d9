"""The matchmaker: one at a time (a lease in Redis, renewed while it runs; another takes
over within the lease's length when it stops), it reads every queue, forms tables
(services.quickplay.matching), claims their players off the queue in one script, then
creates each table's game through its engine and seats the players. A table claimed but
not seated (the matchmaker died in between) is finished by the next one: the game's id
and the create's command id are the table's, so a second create finds the first."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import uuid

from prometheus_client import Counter

from services.accounts.bots import bot_accounts, count_bot_game, kept_from_bots
from services.accounts.social import kept_apart
from services.accounts.streams import directory_key, take_seat
from services.accounts.vacations import seated_on_vacation
from services.core.eventstore import EventStore
from services.core.seating import seat_calls
from services.core.transport import EngineClient
from services.games import GAMES
from services.kernel.errors import RuleViolation
from services.kernel.game import SeatSpec
from services.quickplay.matching import Waiting, bot_level, tables
from services.quickplay.queue import Queue, Table
from services.ratings.boards import Boards
from services.ratings.rules import BOT_PREFIX

log = logging.getLogger(__name__)
TABLES = Counter("raffe_quickplay_tables_total", "Quick-play tables seated", ["game", "bots"])
LEASE_LUA = """
local held = redis.call('GET', KEYS[1])
if held == false then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if held == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0
"""


class Matchmaker:
    interval_s = 0.25  # a step this often while anyone waits: their window widens with time

    def __init__(
        self,
        store: EventStore,
        engines: dict[str, EngineClient],
        bots_after_s: float,
        boards: Boards,
        lease_ms: int = 5000,
        turn_based_bots_after_s: float = 86_400,
        bot_games_per_day: int = 100,
    ) -> None:
        self.store, self.engines, self.boards = store, engines, boards
        self.queue = Queue(store)
        self.directory = directory_key(store)
        self.bot_games_per_day = bot_games_per_day  # bot accounts' games against bots
        self.bots_after_ms = int(bots_after_s * 1000)
        # A turn-based table fills over hours: people join and play when they can.
        self.bots_after = {"realtime": self.bots_after_ms}
        self.bots_after["turn_based"] = int(turn_based_bots_after_s * 1000)
        self.lease_ms = lease_ms
        self.owner = uuid.uuid4().hex
        self._lease = store.redis.register_script(LEASE_LUA)
        self.stopping = asyncio.Event()
        # Players the last step left in the real-time queues (a turn-based wait is hours
        # long: the steps at each lease renewal serve it).
        self.left_waiting = 0
        # With nobody waiting, the lease's holder sleeps until a join wakes it, or its
        # lease is due for renewal; the others try for the lease as often. (It polled
        # every queue four times a second, most of an idle bot runner's CPU.)
        timeout_s = store.settings.redis_timeout_s / 2  # a blocked read is a Redis call
        self.idle_s = max(self.interval_s, min(lease_ms / 3000, timeout_s))

    async def run(self) -> None:
        failures = 0
        while not self.stopping.is_set():
            held = False
            try:
                if held := await self.leased():
                    await self.step()
                failures = 0
            except Exception as error:  # Redis or an engine away: try again soon
                failures += 1
                log.warning("matchmaker step failed: %s", error, extra={"error": str(error)})
            if failures:
                await self._pause(self.interval_s * min(2**failures, 8))
            elif not held:
                await self._pause(self.idle_s)
            elif self.left_waiting:
                await self._pause(self.interval_s)
            else:
                await self._until_joined(self.idle_s)

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)

    async def _until_joined(self, seconds: float) -> None:
        """Until a player joins a queue (its join script pushes a wake-up), at most
        ``seconds``, or until stopped."""
        wake = self.store.redis.blpop([self.queue.key("wake")], timeout=seconds)
        woken, stopped = asyncio.ensure_future(wake), asyncio.ensure_future(self.stopping.wait())
        done, _ = await asyncio.wait({woken, stopped}, return_when=asyncio.FIRST_COMPLETED)
        for task in (woken, stopped):
            task.cancel()
        if woken in done and (error := woken.exception()) is not None:
            # Redis away or hung (a blocked read times out): as after a failed step.
            log.warning("matchmaker wait failed", extra={"error": str(error)})
            await self._pause(self.interval_s)

    async def leased(self) -> bool:
        """Whether this matchmaker holds the lease (taken, or renewed, now)."""
        args: list[str | int] = [self.owner, self.lease_ms]
        return bool(await self._lease(keys=[self.queue.key("lease")], args=args))

    async def step(self) -> int:
        """Seat what was claimed before, then form and seat new tables; how many."""
        done = left = 0
        for table in await self.queue.matched():
            await self.seat(table)
            done += 1
        now = int(time.time() * 1000)
        for game, size, speed in await self.queue.queues():
            waiting = [Waiting(*w) for w in await self.queue.waiting(game, size, speed)]
            scores = {w.player: w.score for w in waiting}
            prefix = self.store.settings.key_prefix  # blocks keep players apart:
            players = [w.player for w in waiting]
            apart = await kept_apart(self.store.redis, prefix, players)
            programs, kept = await kept_from_bots(
                self.store.redis, prefix, self.directory, players, self.bot_games_per_day
            )
            after = self.bots_after[speed]
            formed = tables(waiting, size, now, after, apart | kept, programs)
            left += len(waiting) if speed == "realtime" else 0
            for seats in formed:
                level = await self.level_for(game, [scores[p] for p in seats if p])
                game_id = self.engines[game].new_game_id()
                table = Table(game_id, game, _shuffled(seats), level, speed)
                if await self.queue.claim(table, size):
                    await self.seat(table)
                    done += 1
                    left -= sum(1 for p in seats if p) if speed == "realtime" else 0
        self.left_waiting = left
        return done

    async def level_for(self, game: str, scores: list[float]) -> str:
        """The bot level rated nearest the table's players (bot levels are rated)."""
        spec = GAMES[game]
        ratings = await self.boards.ratings_many(game, [BOT_PREFIX + b for b in spec.bots])
        levels = {b: ratings.get(BOT_PREFIX + b, {}).get("score") for b in spec.bots}
        return bot_level(scores, levels, spec.default_bot)

    async def seat(self, table: Table) -> None:
        spec = GAMES[table.game]
        level = table.bot_level or spec.default_bot
        seats = [
            SeatSpec("human", "", "", p) if p else SeatSpec("bot", "", level) for p in table.seats
        ]
        options = {} if table.speed == "realtime" else {"speed": table.speed}
        await self.engines[table.game].create(
            seats, options, game_id=table.game_id, command_id=f"create:{table.game_id}"
        )
        players = {i: p for i, p in enumerate(table.seats) if p is not None}
        pipe = self.store.redis.pipeline(transaction=False)
        kinds = [s.kind for s in seats]
        seat_calls(pipe, self.store, table.game_id, kinds, players, int(time.time() * 1000))
        await pipe.execute()
        await self._count_bot_game(list(players.values()))
        for seat, player in players.items():
            try:
                await take_seat(self.store, player, table.game_id, seat)
            except RuleViolation:  # erased while queued: the seat stays theirs, unnamed
                log.info("seated an erased player", extra={"game_id": table.game_id})
        if table.speed == "turn_based":  # a player on vacation: the new game waits too
            prefix, engine = self.store.settings.key_prefix, self.engines[table.game]
            await seated_on_vacation(self.store.redis, prefix, engine, table.game_id, players)
        await self.queue.seated(table)
        bots = str(len(table.seats) - len(players))
        TABLES.labels(table.game, bots).inc()
        log.info(
            "table seated",
            extra={"game_id": table.game_id, "game": table.game, "speed": table.speed},
        )

    async def _count_bot_game(self, players: list[str]) -> None:
        """Bot accounts seated together play one more game against bots today."""
        redis, prefix = self.store.redis, self.store.settings.key_prefix
        programs = sorted(await bot_accounts(redis, self.directory, players))
        if len(programs) > 1:
            await count_bot_game(redis, prefix, programs, time.time())


def _shuffled(seats: list[str | None]) -> list[str | None]:
    """Who sits where is drawn (the first seat often moves first)."""
    out = list(seats)
    random.SystemRandom().shuffle(out)
    return out

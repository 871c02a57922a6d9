"""The bot runner: follows the partition logs it owns and, whenever a bot seat must act,
plays it through the engine like any client (DESIGN §2: bots see only the seat's view
and legal commands). It also drives round and turn timers (AL-3): when a game's status
shows a deadline and names the command to send when it passes, the runner sends it.

Several runners share the partitions by leases. A move's command id is derived from the
game, its version and the seat, so a move retried by another runner (after a crash, or
a lost lease) is the same command and never played twice.

A game never waits on a bot for good: each game a bot owes a move is remembered until a
look finds no bot to act (``owed``); one whose playing stopped without that (a failure
outlasting the retries, a look that found the game where it was) is played again by
``tick``, and every game a bot has owed a move for more than ``stuck_after_s`` without
one is counted (``raffe_bot_games_stuck``, alerted on: deploy/monitoring/alerts.yaml).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, replace
from typing import Any

from prometheus_client import Counter, Gauge

from services.bots.thinking import Thinkers
from services.core.attention import needs_runner
from services.core.codec import loads
from services.core.errors import RaffeError
from services.core.eventstore import EventStore, StoredEvent
from services.core.transport import EngineClient
from services.core.worker import BOT_GROUP, CheckpointedWorker
from services.kernel.commands import has_timer
from services.kernel.game import SPECTATOR
from services.kernel.rng import SeededRng
from services.kernel.table import STAND_IN_EVENTS

log = logging.getLogger(__name__)
NO_DEADLINE = 2**62  # a partition without timers
MAX_WATCHED = 100_000  # games whose GameCreated the runner keeps in memory
MOVES = Counter("raffe_bot_moves_total", "Moves played by bots", ["game", "result"])
STUCK = Gauge(
    "raffe_bot_games_stuck",
    "Games a bot owes a move and has not moved in for longer than RAFFE_BOT_STUCK_S",
)
REPLAYED = Counter(
    "raffe_bot_games_replayed_total",
    "Games a bot owed a move whose playing had stopped, played again",
)
REPLAY_AFTER_S = 1.0  # a game whose playing stopped while a bot owes a move: looked at again


@dataclass(frozen=True)
class Watch:
    """What the runner needs of a game's GameCreated: its seats, whether it is timed,
    and whether it needs a runner at all (an attended game may not: a tournament table
    of humans without a clock is attended for the tournament runner)."""

    seats: list[dict[str, Any]]
    timed: bool
    idle: bool
    # The game's secret seed: bots draw from it, so no player can foresee a bot's secret
    # choice (a vote, a card) by running the open-source bot with a guessable generator.
    seed: str = ""
    # Seats a bot plays for a player who left, as the runner last saw the game's status.
    stand_ins: tuple[int, ...] = ()

    def bot_played(self) -> list[int]:
        """The seats a bot plays, as far as the runner knows: a look at the game asks
        for the first of them to act."""
        bots = [i for i, s in enumerate(self.seats) if s.get("kind") == "bot"]
        return sorted({*bots, *self.stand_ins})

    @classmethod
    def of(cls, created: dict[str, Any]) -> Watch:
        timed = has_timer(created.get("options", {}))
        seats = created.get("seats", [])
        return cls(seats, timed, not needs_runner(created), str(created.get("seed", "")))


@dataclass(frozen=True)
class Seen:
    """A seat's view and legal commands at a version: what a bot decides on."""

    seat: int
    version: int
    view: dict[str, Any]
    legal: dict[str, Any]


@dataclass(frozen=True)
class Acted:
    """What playing a game on saw last: its version, whether it is over, and whether it
    is no bot's at all (humans only, no clock: nothing newer can change that)."""

    version: int
    over: bool = False
    idle: bool = False
    owed: bool = False  # a bot still had to act when it stopped (its pass bound)


@dataclass
class Playing:
    """A game the runner is playing on, in a task of its own."""

    partition: int
    since: int  # the partition-log position of the first event it was started for
    task: asyncio.Task[None]
    read: int = 0  # batches with the game's events read since it started


@dataclass
class Owed:
    """A game a bot owes a move, as far as the runner knows: since when nothing moved."""

    partition: int
    game_type: str
    position: int  # the partition-log position it was first played for: held back
    since: float  # time.monotonic() of its last bot move, or of when it became owed


class BotRunner(CheckpointedWorker):
    def __init__(
        self,
        store: EventStore,
        engines: dict[str, EngineClient],
        ttl_ms: int = 5000,
        pace_ms: int = 0,
        stuck_after_s: float = 60.0,
        thinkers: Thinkers | None = None,
    ) -> None:
        super().__init__(store, BOT_GROUP, ttl_ms)
        self.engines = engines
        self.thinkers = thinkers or Thinkers()  # where each level decides
        # A bot waits this long before each move (RAFFE_BOT_PACE_MS): people at the table,
        # spectators and a tournament's followers see each move; 0 plays at once.
        self.pace_s = pace_ms / 1000
        self.watched: dict[str, Watch] = {}  # game -> what its GameCreated says
        self.playing: dict[str, Playing] = {}
        self.timer_every_s = 0.2
        self._last_timers = 0.0
        # Partition -> the earliest deadline in its timer set, as far as this runner
        # knows (it writes the set of the partitions it owns); absent: ask Redis.
        self._next_due: dict[int, int] = {}
        self.owed: dict[str, Owed] = {}  # games a bot may owe a move (module doc)
        self.stuck_after_s = stuck_after_s
        self._last_owed = 0.0

    def _timers_key(self, p: int) -> str:
        return f"{self.store.keys.tag(p)}:bots:timers"

    async def work(self, partition: int, events: list[StoredEvent]) -> bool:
        latest: dict[str, StoredEvent] = {}
        first: dict[str, int] = {}  # each game's earliest position in this batch
        for e in events:
            if e.type == "GameCreated":
                self._remember(e.game_id, Watch.of(loads(e.payload)))
            elif e.type in STAND_IN_EVENTS:  # a bot now plays a player's seat
                self._remember(e.game_id, replace(await self._watch(e.game_id), idle=False))
            latest[e.game_id] = e
            first.setdefault(e.game_id, e.position)
        played = [self._play(partition, e, first[g]) for g, e in latest.items()]
        return any(played)

    def _play(self, partition: int, event: StoredEvent, position: int) -> bool:
        """Have the game played on from ``event``: by a task of its own, so the runner
        reads on while it plays (a bots-only game plays to its end in one go; waiting for
        it held up every game that began meanwhile, and the timers). False when the game
        needs no runner, or when a task of it already plays (no new engine call)."""
        game_id = event.game_id
        if event.game_type not in self.engines:
            return False
        watch = self.watched.get(game_id)
        if watch is not None and watch.idle:  # humans only and no clock
            return False
        playing = self.playing.get(game_id)
        if playing is not None:  # looked at again when its task has played what it knew
            # Not busy: its task answers, so this batch's checkpoint can wait and the next
            # read can gather more. (Busy here made the runner read and save once per
            # bot move of a game it plays: docs/decisions, "bot game tasks".)
            playing.read += 1
            return False
        if event.type == "GameEnded" and not (watch and watch.timed):
            self.watched.pop(game_id, None)  # over: no bot acts, no timer to clear
            return False
        self._start(partition, event.game_type, game_id, position)
        return True

    def _start(self, partition: int, game_type: str, game_id: str, position: int) -> None:
        """A task that plays the game on; the game is owed a look until one finds no bot
        to act."""
        self.owed.setdefault(game_id, Owed(partition, game_type, position, time.monotonic()))
        task = asyncio.create_task(self._play_on(partition, game_type, game_id))
        self.playing[game_id] = Playing(partition, position, task)

    async def _play_on(self, partition: int, game_type: str, game_id: str) -> None:
        """Act until the game needs nothing more of a bot, then again while the game's
        events were read meanwhile (a person's move, or its own). A failure (no engine answers,
        Redis away) is tried again after a backoff while the partition is still this
        runner's: its checkpoint stays behind the game's events until this ends."""
        playing = self.playing[game_id]
        failures, last = 0, -1
        try:
            while not self.stopping.is_set():
                read = playing.read
                try:
                    acted = await self.act(partition, game_type, game_id)
                except Exception as error:
                    failures += 1
                    if partition not in self.leases.owned:
                        return  # its next owner reads the game's events again
                    await self._retry_after(error, failures, game_id)
                    continue
                failures = 0
                if acted.over:  # forgotten: the runner's memory stays bounded
                    self.watched.pop(game_id, None)
                if not acted.owed:  # no bot to act: nothing is owed until an event says so
                    self.owed.pop(game_id, None)
                # Done unless the game's events were read meanwhile: then it looks again
                # from a fresh view, as each batch once did (an answer's status is its
                # command's), unless that found the game where the last look left it.
                if acted.over or acted.idle or playing.read == read or acted.version <= last:
                    return
                last = acted.version
        finally:
            self._played(partition, game_id)

    async def _retry_after(self, error: Exception, failures: int, game_id: str) -> None:
        delay = self.retry_delay(failures)
        code = error.code if isinstance(error, RaffeError) else type(error).__name__
        log.warning("bot play failed", extra={"game_id": game_id, "code": code, "retry_s": delay})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), delay)

    def _played(self, partition: int, game_id: str) -> None:
        self.playing.pop(game_id, None)
        fence = self.leases.owned.get(partition)
        if fence is not None and partition in self.checkpoints:  # saved with the next ones
            self._unsaved[partition] = (fence, self.held(partition, self.checkpoints[partition]))

    def held(self, partition: int, position: int) -> int:
        """The checkpoint a partition may save: before the first event of a game still
        being played or owed a bot's move, so a runner that stops mid-game leaves it to
        the next owner."""
        starts = [g.since - 1 for g in self.playing.values() if g.partition == partition]
        starts += [g.position - 1 for g in self.owed.values() if g.partition == partition]
        return min([position, *starts])

    async def run(self) -> None:
        try:
            await super().run()
        finally:  # the games go on with the partitions' next owners
            tasks = [p.task for p in self.playing.values()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _watch(self, game_id: str) -> Watch:
        if game_id not in self.watched:
            first = await self.store.read_game_range(game_id, 0, 1)
            watch = Watch.of(loads(first[0].payload) if first else {})
            if watch.idle and any(
                e.type in STAND_IN_EVENTS for e in await self.store.read_game(game_id, 1)
            ):
                watch = replace(watch, idle=False)  # seen again after a restart
            self._remember(game_id, watch)
        return self.watched[game_id]

    def _remember(self, game_id: str, watch: Watch) -> None:
        if len(self.watched) >= MAX_WATCHED:  # games abandoned unfinished; re-read on need
            self.watched.clear()
        self.watched[game_id] = watch

    async def act(self, partition: int, game_type: str, game_id: str) -> Acted:
        """Play every bot seat that must act now, until a human must act or it is over;
        the last version it saw, and whether the game is over."""
        engine = self.engines[game_type]
        watch = await self._watch(game_id)
        if watch.idle:  # humans only and no clock: nothing to do, no engine call
            return Acted(0, idle=True)
        seats = watch.seats
        status: dict[str, Any] | None = None
        seen: Seen | None = None  # the next bot's view, from a look or the last answer
        version = 0
        for _ in range(1000):  # bounded: each pass plays at least one move or stops
            if status is None:
                version, status, seen = await self._look(engine, game_id, watch)
            if watch.timed:
                await self._note_deadline(partition, game_id, status)
            stand_ins = set(status.get("stand_ins", ()))
            if stand_ins != set(watch.stand_ins):
                watch = replace(watch, stand_ins=tuple(sorted(stand_ins)))
                self._remember(game_id, watch)
            bots = [s for s in status["to_act"] if seats[s]["kind"] == "bot" or s in stand_ins]
            if status["over"] or not bots:
                return Acted(version, over=bool(status["over"]))
            for seat in bots:
                known = seen if seen is not None and seen.seat == seat else None
                if self.pace_s:
                    await asyncio.sleep(self.pace_s)
                status, seen, version = await self._move(
                    engine, game_type, game_id, seat, watch, known, seat in stand_ins
                )
        log.warning("bot play stopped at its bound", extra={"game_id": game_id})
        return Acted(version, owed=True)

    async def _look(
        self, engine: EngineClient, game_id: str, watch: Watch
    ) -> tuple[int, dict[str, Any], Seen | None]:
        """The game's version and status, with the view of the first seat a bot plays
        that must act, when one must (one call: a look, then that seat's view, were two
        per bot turn). While others must act too (a round of votes), a person may move
        during the bot's pause: its move then reads the view after the pause, as before,
        rather than be refused for a version gone by."""
        look = await engine.first_to_act(game_id, watch.bot_played(), SPECTATOR)
        alone = not self.pace_s or len(look.status.get("to_act", ())) == 1
        seen = None
        if look.seat != SPECTATOR and look.commands.get("to_act") and alone:
            seen = Seen(look.seat, look.version, look.view, look.commands)
        return look.version, look.status, seen

    async def _move(
        self,
        engine: EngineClient,
        game_type: str,
        game_id: str,
        seat: int,
        watch: Watch,
        known: Seen | None = None,
        stand_in: bool = False,
    ) -> tuple[dict[str, Any] | None, Seen | None, int]:
        """One move of a bot seat, decided on ``known`` (the previous move's answer, when
        it was this seat's view) or on one state read; the game's status after it and the
        next seat's view (from the command's answer), or None when they are unknown, and
        the last version seen."""
        if known is None:
            version, view, status, legal = await engine.view_and_commands(game_id, seat)
            known = Seen(seat, version, view, legal)
            if not legal.get("to_act"):
                return status, None, version
        rng = SeededRng(f"{watch.seed}:bot:{game_id}:{seat}", known.version)
        level = watch.seats[seat].get("bot_level", "")
        command = await self.thinkers.decide(game_type, level, known.view, known.legal, rng)
        try:
            # The version it decided on: an engine replica whose cache is behind reads
            # just the newer events first, instead of failing an append and reloading.
            cid = f"bot:{game_id}:{known.version}:{seat}"
            done = await engine.execute(
                game_id, seat, command, cid, known.version, answer_next=True, stand_in=stand_in
            )
            MOVES.labels(game_type, "ok").inc()
            if (owed := self.owed.get(game_id)) is not None:
                owed.since = time.monotonic()  # a move: not stuck
            following = Seen(done.seat, done.version, done.view, done.commands)
            state = dict(done.view["status"])
            return state, following if done.commands.get("to_act") else None, done.version
        except RaffeError as error:  # another runner moved first, or the state moved on
            MOVES.labels(game_type, error.code).inc()
            log.info(
                "bot move refused",
                extra={"game_id": game_id, "version": known.version, "code": error.code},
            )
            return None, None, known.version

    async def _note_deadline(self, partition: int, game_id: str, status: dict[str, Any]) -> None:
        deadline = int(status.get("deadline_ms") or 0)
        key = self._timers_key(partition)
        if deadline and not status["over"]:
            await self.store.redis.zadd(key, {game_id: deadline})
            if partition in self._next_due:
                self._next_due[partition] = min(self._next_due[partition], deadline)
        else:
            await self.store.redis.zrem(key, game_id)

    async def load_checkpoint(self, partition: int) -> int:
        self._next_due.pop(partition, None)  # newly owned: its timers are unknown here
        return await super().load_checkpoint(partition)

    async def tick(self) -> None:
        self._look_at_owed()
        await self._timers()

    def _look_at_owed(self) -> None:
        """Play again each owned game a bot owes a move whose playing stopped (forget
        those of partitions no longer owned: their owner reads them), and count those
        stuck: no bot move for longer than ``stuck_after_s``. Once a second."""
        now = time.monotonic()
        if now - self._last_owed < REPLAY_AFTER_S:
            return
        self._last_owed = now
        stuck = 0
        for game_id, owed in list(self.owed.items()):
            if owed.partition not in self.leases.owned:
                del self.owed[game_id]
                continue
            if now - owed.since > self.stuck_after_s:
                stuck += 1
            if game_id not in self.playing:
                REPLAYED.inc()
                log.warning("bot game played again", extra={"game_id": game_id})
                self._start(owed.partition, owed.game_type, game_id, owed.position)
        STUCK.set(stuck)

    async def _timers(self) -> None:
        """Send the deadline command of every owned game whose deadline has passed.

        At most every ``timer_every_s``, and only for partitions whose earliest known
        deadline has come: asking every owned partition for due timers on every turn of
        the loop cost a quarter of the runner's CPU under load. Timers count in whole
        seconds, so 0.2 s is precise enough."""
        if time.monotonic() - self._last_timers < self.timer_every_s:
            return
        self._last_timers = time.monotonic()
        now = int(time.time() * 1000)
        asked = [p for p in self.leases.owned if self._next_due.get(p, 0) <= now]
        if not asked:
            return
        pipe = self.store.redis.pipeline(transaction=False)
        for p in asked:
            pipe.zrangebyscore(self._timers_key(p), 0, now)
        for p, due in zip(asked, await pipe.execute(), strict=True):
            for raw in due:
                await self._expire(p, raw.decode(), now)
        pipe = self.store.redis.pipeline(transaction=False)
        for p in asked:
            pipe.zrange(self._timers_key(p), 0, 0, withscores=True)
        for p, first in zip(asked, await pipe.execute(), strict=True):
            self._next_due[p] = int(first[0][1]) if first else NO_DEADLINE

    async def _expire(self, partition: int, game_id: str, now: int) -> None:
        meta = await self.store.meta(game_id)
        engine = self.engines.get(meta.game_type) if meta else None
        if engine is None:
            await self.store.redis.zrem(self._timers_key(partition), game_id)
            return
        _, _, status = await engine.view(game_id, SPECTATOR)
        command = status.get("on_deadline")
        deadline = int(status.get("deadline_ms") or 0)
        if command and deadline and deadline <= now:
            try:
                cid = f"timer:{game_id}:{deadline}"
                done = await engine.execute(game_id, -1, command, cid, 0)
                status = done.view["status"]  # the next deadline, without asking again
            except RaffeError as error:
                log.info("timer command refused", extra={"game_id": game_id, "code": error.code})
                _, _, status = await engine.view(game_id, SPECTATOR)
        await self._note_deadline(partition, game_id, status)

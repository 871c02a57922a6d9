"""A worker that follows the partition logs it owns (projection, bot and tournament
runners).

Each loop: refresh the leases, read every owned partition after its checkpoint in one
pipelined round trip, hand all the batches to ``handle_all``, which stores each
partition's results together with its new checkpoint (fenced per partition), the
partitions' writes sharing one round trip. On a single node the read is one blocking XREAD over
every owned partition; on Redis Cluster, where one XREAD cannot span slots, pipelined
XRANGEs, with a short sleep when idle. After a batch, a worker may wait ``coalesce_s``
so that the next read gathers more events: under load one read (and one write of read
models) per few milliseconds costs far less than one per event, for a lag of that much.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Iterable
from typing import Any, TypeVar, cast

from services.core.errors import RaffeError, store_failure
from services.core.eventstore import EventStore, StoredEvent
from services.core.eventstore.pipelined import run_script_many
from services.core.eventstore.store import log_events
from services.core.partitions import PartitionLeases

log = logging.getLogger(__name__)
T = TypeVar("T")
Batch = tuple[int, list[StoredEvent]]  # a partition's fencing token and new events


async def gather_all(work: Iterable[Awaitable[T]]) -> list[T]:
    """Run all of ``work`` to its end, then raise the first failure, if any: unlike a
    bare gather, nothing is left running behind an error (a retry would race it)."""
    results = await asyncio.gather(*work, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return cast(list[T], results)


class PartitionWorker(ABC):
    batch = 500
    idle_sleep = 0.02
    block_ms = 500  # bounded, so leases are renewed and ticks (timers) run meanwhile
    wanting_every_s = 0.1  # lease refreshes while short of a share (PartitionLeases.wanting)
    coalesce_s = 0.0
    retry_sleep = 0.1  # after a failed step, doubling; nothing was checkpointed
    max_retry_sleep = 2.0

    def __init__(self, store: EventStore, group: str, ttl_ms: int = 5000) -> None:
        self.store = store
        self.leases = PartitionLeases(store, group, ttl_ms)
        self.checkpoints: dict[int, int] = {}
        # A failover may have lost log entries this worker read (never acknowledged):
        # its positions and what it keeps in memory are dropped, read again from the
        # checkpoints the new primary holds (each stored after what it covers, so
        # whatever it kept, it kept what came before).
        self._failed_over = False
        store.on_failover(self._on_failover)
        self.stopping = asyncio.Event()
        self._last_refresh = 0.0
        # Wake at least four times a lease period, so leases are renewed in time, and well
        # before a Redis call times out (a blocked read is a call).
        timeout_ms = int(store.settings.redis_timeout_s * 1000)
        self.block_ms = max(10, min(self.block_ms, ttl_ms // 4, timeout_ms // 2))

    @abstractmethod
    async def load_checkpoint(self, partition: int) -> int: ...

    @abstractmethod
    async def handle_all(self, batches: dict[int, Batch]) -> dict[int, bool]:
        """Process every partition's (fence, new events) and store the new checkpoints
        with the results; for each partition, whether it was stored (False: fenced out).
        One step's partitions are handled together, so they can share round trips."""

    def stream_key(self, partition: int) -> str:
        """The stream this worker follows in each partition: the whole log by default."""
        return self.store.keys.log(partition)

    async def tick(self) -> None:  # noqa: B027 - an optional hook, empty by default
        """Hook run once per loop (timers, generation switches)."""

    def pause_after_work(self) -> float:
        """Seconds to wait after a batch before reading again (see the module's doc)."""
        return self.coalesce_s

    async def run(self) -> None:
        """Until stopped. A step that fails (Redis restarting, no engine answering, a bug
        on one event) is logged and tried again after a backoff of up to
        ``max_retry_sleep``: nothing of it was checkpointed, so its batch comes again.
        Leases lost meanwhile are taken again (or by another worker) on the next step."""
        failures = 0
        try:
            while not self.stopping.is_set():
                try:
                    worked = await self.step()
                    await self.tick()
                except Exception as error:
                    failures += 1
                    await self._back_off(error, failures)
                    continue
                failures = 0
                if not worked and (self.store.settings.cluster or not self.leases.owned):
                    await asyncio.sleep(self.idle_sleep)
                elif worked and (pause := self.pause_after_work()):  # asked once: it resets
                    await asyncio.sleep(pause)
        finally:
            with contextlib.suppress(Exception):  # Redis may be gone: the leases expire
                await self.leases.release_all()

    def retry_delay(self, failures: int) -> float:
        """After ``failures`` failures in a row: doubling from ``retry_sleep``, capped."""
        return float(min(self.retry_sleep * 2 ** min(failures - 1, 6), self.max_retry_sleep))

    async def _back_off(self, error: Exception, failures: int) -> None:
        delay = self.retry_delay(failures)
        if isinstance(error, RaffeError):  # e.g. no engine replica answers
            log.warning("step failed", extra={"code": error.code, "error": str(error)})
        elif store_failure(error) is not None:
            log.warning("event store unavailable", extra={"error": str(error), "retry_s": delay})
        else:
            log.error("step failed", exc_info=error)
        # Held partitions are read again from their checkpoints after an outage.
        self._last_refresh = 0.0
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), delay)

    def _on_failover(self) -> None:
        self._failed_over = True

    def forget(self) -> None:  # noqa: B027 - an optional hook, empty by default
        """Drop what is kept in memory of the log (a failover): it is read again."""

    async def step(self) -> bool:
        if self._failed_over:
            self._failed_over = False
            self.forget()
            for p in list(self.checkpoints):
                self.checkpoints[p] = await self.load_checkpoint(p)
        owned = await self._owned()
        if not owned:
            return False
        read = await self._read(sorted(owned))
        batches = {p: (owned[p], events) for p, events in read.items() if events}
        if not batches:
            return False
        stored = await self.handle_all(batches)
        for p, (_, events) in batches.items():
            if stored[p]:
                self.checkpoints[p] = events[-1].position
            else:  # fenced: another worker owns it now
                await self.leases.release(p)
                self.checkpoints.pop(p, None)
        return True

    def refresh_every_s(self) -> float:
        """A third of a lease period; while short of its share, often, so partitions
        another worker gives back (at its own refresh) or leaves to expire are followed
        again at once, not up to a lease period and a blocked read (~2.2 s) later."""
        if self.leases.wanting:
            return min(self.wanting_every_s, self.leases.ttl_ms / 3000)
        return self.leases.ttl_ms / 3000

    async def _owned(self) -> dict[int, int]:
        now = time.monotonic()
        if now - self._last_refresh > self.refresh_every_s():
            before = dict(self.leases.owned)
            await self.leases.refresh()
            self._last_refresh = now
            # A partition taken anew, or lost and taken again (a new fence: Redis hung
            # past the lease, say), is read from its stored checkpoint: work begun under
            # the old lease may have been given up meanwhile (a bot runner's game), and
            # only the stored checkpoint is held back for it.
            for p, fence in self.leases.owned.items():
                if before.get(p) != fence:
                    self.checkpoints[p] = await self.load_checkpoint(p)
            for p in set(before) - set(self.leases.owned):
                self.checkpoints.pop(p, None)
        return dict(self.leases.owned)

    async def _read(self, partitions: list[int]) -> dict[int, list[StoredEvent]]:
        if not self.store.settings.cluster:
            return await self._read_blocking(partitions)
        pipe = self.store.redis.pipeline(transaction=False)
        for p in partitions:
            pipe.xrange(
                self.stream_key(p), f"({self.checkpoints.get(p, 0)}-0", "+", count=self.batch
            )
        replies = await pipe.execute()
        return {
            p: log_events(reply, self.checkpoints.get(p, 0))
            for p, reply in zip(partitions, replies, strict=True)
        }

    async def _read_blocking(self, partitions: list[int]) -> dict[int, list[StoredEvent]]:
        """One XREAD over every owned partition, waiting up to ``block_ms`` for news: on a
        single node this replaces polling, so idle workers cost nothing. (On a cluster one
        XREAD cannot span slots, so those pipeline XRANGEs instead.)"""
        keys = {self.stream_key(p).encode(): p for p in partitions}
        streams: dict[Any, Any] = {k: f"{self.checkpoints.get(p, 0)}-0" for k, p in keys.items()}
        reply = cast(
            list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]],
            await self.store.redis.xread(streams, count=self.batch, block=self._block_ms()),
        )
        return {
            keys[key]: log_events(entries, self.checkpoints.get(keys[key], 0))
            for key, entries in reply or []
        }

    def _block_ms(self) -> int:
        """How long a read waits for news: no longer than the next lease refresh is due."""
        return min(self.block_ms, max(10, int(self.refresh_every_s() * 1000)))


# Every group that follows the attended log: it is trimmed below all their checkpoints
# (the notifier's, services.notifier, included: a turn-based game has a clock).
BOT_GROUP, TOURNAMENT_GROUP, NOTIFY_GROUP = "bots", "tourn", "notify"
ATTENDING_GROUPS = (BOT_GROUP, TOURNAMENT_GROUP, NOTIFY_GROUP)

# KEYS: 1 checkpoint, 2 fence, 3 attended log, 4.. each attending group's checkpoint.
# Entries every group has passed are read by no one again: trimmed (a group that never
# checkpointed a partition counts as 0 there, which keeps everything).
FENCED_CHECKPOINT = """
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
local low = nil
for i = 4, #KEYS do
  local cp = tonumber(redis.call('GET', KEYS[i]) or '0')
  if low == nil or cp < low then low = cp end
end
if low and low > 0 then redis.call('XTRIM', KEYS[3], 'MINID', low .. '-0') end
return 1
"""


class CheckpointedWorker(PartitionWorker):
    """A worker whose only state is a checkpoint per partition (bot and tournament
    runners: what they do lives in the engines), stored under its fencing token. It
    follows the attended log (services.core.attention): only games a runner must see.

    Subclasses implement ``work``, which says whether the batch needed doing anything.
    Batches that needed nothing are checkpointed together at most every
    ``checkpoint_every_s`` and followed by a pause of ``idle_pause_s`` so the next read
    gathers more: reading a few events again after a crash costs only a look, and fenced
    writes and reads per event were most of an idle runner's work under load. Busy
    batches are checkpointed at once and the worker reads again without a pause (bot
    games go on at full speed). A step's checkpoints share one round trip."""

    checkpoint_every_s = 1.0
    # A bot answers a human's move, and a tournament starts its next round, at most this
    # much later than it could. A longer pause saved a little CPU per move under load but
    # slowed bot tournaments (docs/decisions, "followers share round trips").
    idle_pause_s = 0.05

    def __init__(self, store: EventStore, group: str, ttl_ms: int = 5000) -> None:
        super().__init__(store, group, ttl_ms)
        self._fenced_set = store.redis.register_script(FENCED_CHECKPOINT)
        self._checkpointed = 0.0
        self._unsaved: dict[int, tuple[int, int]] = {}  # partition -> fence, position
        self._busy = False

    @abstractmethod
    async def work(self, partition: int, events: list[StoredEvent]) -> bool:
        """Do what the batch asks; True if it needed anything done."""

    async def handle_all(self, batches: dict[int, Batch]) -> dict[int, bool]:
        # Partitions are independent: their work runs concurrently, so one slow partition
        # (a bot thinking, an engine call) does not hold up the others.
        done = await gather_all(self.work(p, events) for p, (_, events) in batches.items())
        busy = {p for p, b in zip(batches, done, strict=True) if b}
        self._busy = self._busy or bool(busy)
        for p, (fence, events) in batches.items():
            self._unsaved[p] = (fence, self.held(p, events[-1].position))
        now = time.monotonic()
        every = now - self._checkpointed >= self.checkpoint_every_s
        if every:
            self._checkpointed = now
        due = [p for p in self._unsaved if (every or p in busy) and p in self.leases.owned]
        stored = await self.save_checkpoints({p: self._unsaved.pop(p) for p in due})
        return {p: stored.get(p, True) for p in batches}

    async def step(self) -> bool:
        worked = await super().step()
        await self._flush_idle()
        return worked

    async def _flush_idle(self) -> None:
        """Idle batches wait for the next checkpoint round; when no batch comes to make
        one (the log fell quiet), it is made here, so the checkpoint does not stay behind
        what was read (and the attended log is trimmed) until the next event."""
        if not self._unsaved or time.monotonic() - self._checkpointed < self.checkpoint_every_s:
            return
        self._checkpointed = time.monotonic()
        due = [p for p in self._unsaved if p in self.leases.owned]
        stored = await self.save_checkpoints({p: self._unsaved.pop(p) for p in due})
        for p, ok in stored.items():
            if not ok:  # fenced: another worker owns it now
                await self.leases.release(p)
                self.checkpoints.pop(p, None)

    def held(self, partition: int, position: int) -> int:
        """The checkpoint a partition may save once its events up to ``position`` are
        handled: all of them, unless a subclass still works on some in the background."""
        return position

    def pause_after_work(self) -> float:
        busy, self._busy = self._busy, False  # set by any partition's batch of this step
        return 0.0 if busy else self.idle_pause_s

    def stream_key(self, partition: int) -> str:
        return self.store.keys.attended(partition)

    def checkpoint_key(self, partition: int, group: str = "") -> str:
        return f"{self.store.keys.tag(partition)}:{group or self.leases.group}:cp"

    async def load_checkpoint(self, partition: int) -> int:
        self._unsaved.pop(partition, None)
        raw = await self.store.redis.get(self.checkpoint_key(partition))
        return int(raw) if raw else 0

    async def save_checkpoints(self, saves: dict[int, tuple[int, int]]) -> dict[int, bool]:
        """Partition -> (fence, position), in one round trip; False where fenced out."""
        calls = [
            (
                [
                    self.checkpoint_key(p),
                    self.leases.fence_key(p),
                    self.stream_key(p),
                    *(self.checkpoint_key(p, g) for g in ATTENDING_GROUPS),
                ],
                [fence, position],
            )
            for p, (fence, position) in saves.items()
        ]
        replies = await run_script_many(self.store.redis, self._fenced_set, calls)
        return {p: bool(r) for p, r in zip(saves, replies, strict=True)}

"""The primary's connection pool under Sentinel, and its fence against a stale primary.

redis-py asks the sentinels only when it opens a connection. A primary frozen (a VM or
process stall) and thawed after its replacement keeps its clients' connections and
answers them; for the moment before the sentinels re-point its replicas, one of them may
still confirm a write (WAIT) that the promoted replica never sees: acknowledged, then
lost when the old primary is made a replica. Nothing on the old primary can refuse it
(it still thinks it leads), so the clients must stop writing to it first.

A failover always starts with a quorum of sentinels calling the primary objectively down
(``+odown``), and the promotion comes after that. So the pool listens to every
sentinel's ``+odown``: from that moment the primary is *fenced*. Every connection to it
is closed (in use too: its call fails and is retried by its caller, command ids make
that safe), and no new one is opened until the sentinels name another primary or all of
them again see the same one healthy with no failover under way. A poll every second
asks the same of the sentinels, in case an event is missed (a sentinel restarting)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.sentinel import MasterNotFoundError, SentinelConnectionPool
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

# A quorum's verdict or a failover under way; one sentinel's own "s_down" is not (it may be
# the one cut off), and a failover cannot start without "o_down".
HELD_DOWN = {"o_down", "failover_in_progress"}
CLOSE_WAIT_S = 1.0  # how long aclose waits for its cancelled watchers


class PrimaryFenced(MasterNotFoundError):
    """The sentinels hold the primary down: nothing is sent to it until they decide
    (a ConnectionError, so callers answer 503 and clients send again)."""


class EpochSentinelPool(SentinelConnectionPool):
    """The primary's pool as named by the sentinels, settled by config epoch when they
    disagree (``_newest``); the live hub's pub/sub connection uses it as it is."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[no-untyped-call]
        self.epoch = -1  # the config epoch of the primary followed (see ``_newest``)

    async def get_master_address(self) -> Any:
        address = await self.named_primary()
        if self.master_address != address:
            self.master_address = address
            await self.disconnect(inuse_connections=False)  # idle ones reconnect there
        return address

    async def named_primary(self) -> tuple[str, int]:
        """The primary the sentinels name now (``_newest``), without following it."""
        address = self._newest(await self._states())
        if address is None:
            raise MasterNotFoundError(f"no sentinel names a primary for {self.service_name!r}")
        return address

    async def _states(self) -> list[dict[str, Any]]:
        """What every sentinel that answers says of the primary, asked all at once (one
        frozen sentinel costs one timeout, not one per sentinel after it)."""
        answers = await asyncio.gather(
            *(s.sentinel_masters() for s in self.sentinel_manager.sentinels),
            return_exceptions=True,
        )
        found = []
        for answer in answers:
            if isinstance(answer, RedisError | OSError):
                continue
            if isinstance(answer, BaseException):
                raise answer
            if state := answer.get(self.service_name):
                found.append(state)
        return found

    def _newest(self, states: list[dict[str, Any]]) -> tuple[str, int] | None:
        """The primary named with the highest config epoch (each failover raises it),
        unless that is older than the one followed: then the one followed. A sentinel
        that has not yet heard of a failover names the old primary, healthy again once
        thawed; following the first sentinel that answered (as redis-py's
        ``discover_master`` does) sent an append to it after its replacement."""
        valid = self.sentinel_manager.check_master_state
        named = [s for s in states if valid(s, self.service_name)]
        if not named:
            return None
        newest = max(named, key=_epoch)
        epoch = _epoch(newest)
        if epoch < self.epoch and self.master_address is not None:
            return _address(self.master_address)
        if epoch < max(map(_epoch, states)):
            # A sentinel holds a newer configuration whose primary none vouches for yet (a
            # promotion under way): the older one named is the one being replaced, maybe
            # thawed. No primary (503s, sent again) until the newer one is named.
            return None
        self.epoch = epoch
        return (str(newest["ip"]), int(newest["port"]))


class BlockingSentinelPool(EpochSentinelPool, BlockingConnectionPool):
    """The primary's pool as named by the sentinels, waiting for a free connection like
    the single node's pool, fenced while the sentinels hold its primary down.

    When the sentinels name another primary, every connection is closed and
    ``failover_hooks`` run: what a process keeps in memory of Redis may be ahead of the
    new primary (writes of the old one no replica had, never acknowledged, now gone), so
    it drops that and reads again (engine caches, followers' positions:
    docs/operations.md)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.failover_hooks: list[Callable[[], None]] = []
        self.fenced: tuple[str, int] | None = None
        self._tasks: list[asyncio.Task[None]] = []

    async def get_master_address(self) -> Any:
        self._start()
        address = await self.named_primary()
        await self._moved_to(address)
        if self.fenced == _address(address):
            raise PrimaryFenced("the sentinels hold the primary down; a failover may follow")
        return address

    def _start(self) -> None:
        if self._tasks:
            return
        self._tasks.append(asyncio.create_task(self.watch()))
        for sentinel in self.sentinel_manager.sentinels:
            self._tasks.append(asyncio.create_task(self.listen(sentinel)))

    async def watch(self, every_s: float = 1.0) -> None:
        while True:
            await asyncio.sleep(every_s)
            with contextlib.suppress(RedisError, OSError):
                await self.check()

    async def check(self) -> None:
        """Ask every sentinel: fence the primary if one holds it down, lift the fence if
        all that answer see it healthy, follow the primary they name."""
        states = await self._states()
        current = _address(self.master_address)
        if current is not None and any(_held_down(s, current) for s in states):
            await self.fence(current)
        elif self.fenced is not None and states and all(_healthy(s, self.fenced) for s in states):
            self._lift()
        # The primary they name, from the same answers (discover_master would ask again).
        named = self._newest(states)
        if named is not None:
            await self._moved_to(named)

    async def listen(self, sentinel: Redis) -> None:
        """Fence at a sentinel's ``+odown`` of the primary; re-check at ``-odown`` and
        ``+switch-master``. Subscribes again after a sentinel restarts."""
        while True:
            with contextlib.suppress(RedisError, OSError):
                async with sentinel.pubsub() as pubsub:
                    await pubsub.subscribe("+odown", "-odown", "+switch-master")
                    async for message in pubsub.listen():
                        await self._heard(message)
            await asyncio.sleep(1.0)

    async def _heard(self, message: dict[str, Any]) -> None:
        if message.get("type") != "message":
            return
        channel = _text(message["channel"])
        words = _text(message["data"]).split()
        if channel == "+odown" and words[:2] == ["master", self.service_name]:
            await self.fence((words[2], int(words[3])))
        elif channel in ("-odown", "+switch-master") and words[1:2] == [self.service_name]:
            with contextlib.suppress(RedisError, OSError):
                await self.check()

    async def fence(self, address: tuple[str, int]) -> None:
        if self.fenced == address:
            return
        self.fenced = address
        log.warning("the sentinels hold the primary down", extra={"primary": str(address)})
        await self.disconnect(inuse_connections=True)

    def _lift(self) -> None:
        log.warning("the sentinels see the primary again", extra={"primary": str(self.fenced)})
        self.fenced = None

    async def _moved_to(self, address: Any) -> None:
        before, self.master_address = self.master_address, address
        if before is None or before == address:
            return
        log.warning("the sentinels named another primary", extra={"primary": str(address)})
        self.fenced = None  # the new primary is not the one held down
        await self.disconnect(inuse_connections=True)
        for hook in self.failover_hooks:
            hook()

    async def aclose(self) -> None:
        """Stops the watchers (waiting a moment for them: a task left pending when its
        loop closes is collected with a warning) and closes the connections."""
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        if tasks:
            # Bounded: a listener closing its pub/sub on a node frozen or gone may not
            # finish (an unbounded wait hung a failover test's teardown for 300 s).
            await asyncio.wait(tasks, timeout=CLOSE_WAIT_S)
        await super().aclose()


def _held_down(state: dict[str, Any], address: tuple[str, int]) -> bool:
    """Whether this sentinel's primary is ``address`` and it holds it down."""
    return _names(state, address) and bool(HELD_DOWN & _flags(state))


def _healthy(state: dict[str, Any], address: tuple[str, int]) -> bool:
    """Whether this sentinel's primary is ``address``, up, with no failover under way."""
    return _names(state, address) and not HELD_DOWN & _flags(state)


def _epoch(state: dict[str, Any]) -> int:
    return int(state.get("config-epoch", 0))


def _names(state: dict[str, Any], address: tuple[str, int]) -> bool:
    return (str(state["ip"]), int(state["port"])) == address


def _flags(state: dict[str, Any]) -> set[str]:
    return set(str(state["flags"]).split(","))


def _address(address: Any) -> tuple[str, int] | None:
    return None if address is None else (str(address[0]), int(address[1]))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)

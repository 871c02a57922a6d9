"""Which games' announcements a gateway's live listener hears: those someone here watches
(a live stream) or waits on (a read with ``min_version``), each on its own channel, the
game stream's name the append script publishes on.

The listener used to take every game's announcements with one pattern subscription, so
each gateway received, parsed and dropped every move of every game, watched or not: with
nobody watching, a large share of the stack's CPU per move, and
with more gateways each one paid it for the whole site. Now a game's channel is
subscribed while some stream or waiter here holds it, and for ``linger_s`` after the
last lets go (a reconnecting stream, a client reading each version in turn, do not
subscribe again each time).

Holding waits for Redis to confirm the subscription, so a reader that then looks at the
store cannot miss a version appended between its look and the subscription. Confirmations
come back on the listening connection in the order the commands went: the n-th
``subscribe`` reply for a channel confirms the n-th SUBSCRIBE sent for it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, defaultdict
from collections.abc import Callable

from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
CONFIRM_S = 2.0  # at most this long for a confirmation: a lost listener resyncs anyway


def game_of(channel: str) -> str:
    """The game whose announcements a game stream's channel carries (its key's tail)."""
    return channel.rpartition(":game:")[2]


class GameChannels:
    def __init__(self, channel_of: Callable[[str], str], linger_s: float = 10.0) -> None:
        self.channel_of, self.linger_s = channel_of, linger_s
        self.holders: Counter[str] = Counter()  # channel -> streams and waiters holding it
        self._pubsub: PubSub | None = None  # the listening connection, when there is one
        self._subscribed: set[str] = set()  # channels subscribed on it (or asked to be)
        self._sent: Counter[str] = Counter()  # SUBSCRIBEs sent per channel on it
        self._confirmed: Counter[str] = Counter()  # and their confirmations
        self._waiting: dict[str, list[tuple[int, asyncio.Future[None]]]] = defaultdict(list)
        self._lingering: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Future[None]] = set()

    @property
    def listening(self) -> bool:
        """Whether a listening connection is attached (held channels are subscribed)."""
        return self._pubsub is not None

    async def hold(self, game_id: str) -> None:
        """Hear the game's announcements until ``release`` (held from this coroutine's
        first step, before it waits: release it even if this is cancelled); returns
        once Redis confirmed the subscription (or at once, when no listener is
        connected: the next one subscribes every held channel and resyncs)."""
        channel = self.channel_of(game_id)
        self.holders[channel] += 1
        timer = self._lingering.pop(channel, None)
        if timer is not None:
            timer.cancel()
        if self._pubsub is None:
            return
        try:
            if channel not in self._subscribed:
                await self._subscribe([channel])
        except (RedisError, OSError) as error:  # the listener reconnects and resyncs
            log.info("live subscribe failed", extra={"error": str(error)})
            return
        await self._confirmation(channel, self._sent[channel])

    def release(self, game_id: str) -> None:
        channel = self.channel_of(game_id)
        self.holders[channel] -= 1
        if self.holders[channel] > 0:
            return
        del self.holders[channel]
        loop = asyncio.get_running_loop()
        self._lingering[channel] = loop.call_later(self.linger_s, self._drop, channel)

    # -- the listening connection --------------------------------------------------------

    async def attach(self, pubsub: PubSub) -> None:
        """A new listening connection: subscribe every held channel on it."""
        self._pubsub = pubsub
        self._subscribed.clear()
        self._sent.clear()
        self._confirmed.clear()
        for timer in self._lingering.values():
            timer.cancel()
        self._lingering.clear()
        if self.holders:
            await self._subscribe(list(self.holders))

    def detach(self) -> None:
        """The listening connection is gone: nobody waits for its confirmations."""
        self._pubsub = None
        for waiting in self._waiting.values():
            for _, future in waiting:
                if not future.done():
                    future.set_result(None)
        self._waiting.clear()

    def confirmed(self, channel: str) -> None:
        """A ``subscribe`` reply for ``channel`` came in."""
        self._confirmed[channel] += 1
        done = self._confirmed[channel]
        waiting = self._waiting.get(channel, [])
        for entry in [w for w in waiting if w[0] <= done]:
            waiting.remove(entry)
            if not entry[1].done():
                entry[1].set_result(None)
        if not waiting:
            self._waiting.pop(channel, None)

    def unsubscribed(self, channel: str) -> None:
        """An ``unsubscribe`` reply for ``channel`` came in: every reply to a SUBSCRIBE
        sent before it has come too (replies keep the commands' order), so unless it was
        subscribed again meanwhile its counts go. Kept, they grew by a channel for every
        game ever watched here, for as long as the listening connection lived."""
        if channel not in self._subscribed and channel not in self.holders:
            self._sent.pop(channel, None)
            self._confirmed.pop(channel, None)

    # -- inside --------------------------------------------------------------------------

    async def _subscribe(self, channels: list[str]) -> None:
        assert self._pubsub is not None
        for channel in channels:
            self._sent[channel] += 1
            self._subscribed.add(channel)
        await self._pubsub.subscribe(*channels)

    async def _confirmation(self, channel: str, count: int) -> None:
        if self._confirmed[channel] >= count:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[channel].append((count, future))
        try:
            async with asyncio.timeout(CONFIRM_S):
                await future
        except TimeoutError:
            log.warning("no confirmation of a live subscription", extra={"channel": channel})

    def _drop(self, channel: str) -> None:
        """Unsubscribe a channel nobody held for ``linger_s``."""
        self._lingering.pop(channel, None)
        if channel in self.holders:
            return
        if self._pubsub is not None and channel in self._subscribed:
            self._subscribed.discard(channel)
            task = asyncio.ensure_future(self._unsubscribe(self._pubsub, channel))
            self._tasks.add(task)  # referenced until done (the loop keeps weak ones only)
            task.add_done_callback(self._tasks.discard)

    async def _unsubscribe(self, pubsub: PubSub, channel: str) -> None:
        try:
            await pubsub.unsubscribe(channel)
        except (RedisError, OSError) as error:  # the connection is going: so is the channel
            log.info("live unsubscribe failed", extra={"error": str(error)})


def chat_channel(prefix: str) -> str:
    """Every table's chat messages (gateway.chat): each gateway's live hub hears each one
    here and passes it to the streams of the table that may see it."""
    return f"{prefix}:chat"

"""The notifier's outbox: one Redis stream per partition (``{p:NN}:notify:outbox``) of
deliveries to make, each written once per turn and channel.

A turn's delivery is enqueued by one script that first sets its dedup key
(``{p:NN}:notify:sent:<game>:<seat>:<version>:<channel>``, kept ``SENT_TTL_S``): a
notifier that reads the log again after a restart, or a second notifier that took the
partition over, finds the key and enqueues nothing. The sender reads the stream through a
consumer group, acknowledges and deletes a delivery once made, and a delivery read but not
acknowledged (its sender stopped) is read again by the partition's next owner: what is
enqueued is sent, once the receiver answers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import orjson

from services.core.eventstore import EventStore
from services.notifier.turns import Turn

SENT_TTL_S = 30 * 86_400
GROUP = "senders"
CONSUMER = "sender"  # one per partition at a time: its lease's holder

# KEYS: 1 dedup key, 2 outbox; ARGV: 1 the key's seconds, 2 the delivery (JSON).
ENQUEUE = """
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then
  redis.call('XADD', KEYS[2], '*', 'd', ARGV[2])
  return 1
end
return 0
"""


# KEYS: 1 the delivery's lock; ARGV: 1 this sender's token, 2 ms to hold it. 1: hold it
# (taken, or already this sender's); 0: another sender holds it; -1: it was made.
TAKE = """
local v = redis.call('GET', KEYS[1])
if v == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if v == 'done' then return -1 end
if v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""


@dataclass(frozen=True)
class Delivery:
    """One "your turn" to send on one channel."""

    channel: str  # "webhook"
    player: str
    game_id: str
    game: str
    seat: int
    version: int
    deadline_ms: int
    # or a reminder: "half" (half the bank gone), "tenth" (a tenth left); or "digest" (a
    # day's turns in one mail: ``turns``, its time in ``version``; services.notifier.digest)
    kind: str = "turn"
    turns: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, channel: str, player: str, t: Turn, kind: str = "turn") -> Delivery:
        return cls(channel, player, t.game_id, t.game, t.seat, t.version, t.deadline_ms, kind)

    @classmethod
    def digest(cls, player: str, due_ms: int, turns: list[Turn]) -> Delivery:
        listed = [asdict(t) for t in turns]
        return cls("email", player, "", "", -1, due_ms, 0, "digest", listed)

    @property
    def key(self) -> str:
        if self.kind == "digest":
            return f"digest:{self.player}:{self.version}:{self.channel}"
        told = "" if self.kind == "turn" else f":{self.kind}"
        return f"{self.game_id}:{self.seat}:{self.version}{told}:{self.channel}"

    def encoded(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def decoded(cls, raw: bytes) -> Delivery:
        return cls(**orjson.loads(raw))


class Outbox:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._enqueue = store.redis.register_script(ENQUEUE)
        self._take = store.redis.register_script(TAKE)

    def stream(self, partition: int) -> str:
        return f"{self.store.keys.tag(partition)}:notify:outbox"

    def sent_key(self, partition: int, delivery: Delivery) -> str:
        return f"{self.store.keys.tag(partition)}:notify:sent:{delivery.key}"

    def lock_key(self, partition: int, delivery: Delivery) -> str:
        return f"{self.store.keys.tag(partition)}:notify:sending:{delivery.key}"

    async def take(
        self, pipe: Any, partition: int, delivery: Delivery, token: str, hold_ms: int
    ) -> None:
        """In ``pipe`` (a delivery's round trip carries its player's channels too): hold a
        delivery while sending it, so that two senders never make it both (a partition
        changing hands, a pending delivery read by the next owner). Its answer: 1 held,
        0 another sender holds it, -1 it was made already."""
        keys = [self.lock_key(partition, delivery)]
        await self._take(keys=keys, args=[token, hold_ms], client=pipe)  # queued, not sent

    def made(self, pipe: Any, partition: int, delivery: Delivery, entry_id: str) -> None:
        """In ``pipe``: the delivery went through: nobody makes it again (kept as the dedup
        keys are), and it leaves the outbox."""
        pipe.set(self.lock_key(partition, delivery), "done", ex=SENT_TTL_S)
        self.done_in(pipe, partition, entry_id)

    async def enqueue(self, partition: int, delivery: Delivery) -> bool:
        """Whether it was new (False: this turn was told on this channel already)."""
        keys = [self.sent_key(partition, delivery), self.stream(partition)]
        return bool(await self._enqueue(keys=keys, args=[SENT_TTL_S, delivery.encoded()]))

    async def ensure_group(self, partition: int) -> None:
        stream = self.stream(partition)
        try:
            await self.store.redis.xgroup_create(stream, GROUP, id="0", mkstream=True)
        except Exception as error:  # the group exists already
            if "BUSYGROUP" not in str(error):
                raise

    async def pending(self, partition: int, count: int = 1000) -> list[tuple[int, str, Delivery]]:
        """What a stopped sender of this partition read and did not acknowledge."""
        reply: Any = await self.store.redis.xreadgroup(
            GROUP, CONSUMER, {self.stream(partition): "0"}, count=count
        )
        return self._deliveries(reply, {self.stream(partition).encode(): partition})

    async def fresh(
        self, partitions: list[int], block_ms: int, count: int = 100
    ) -> list[tuple[int, str, Delivery]]:
        """New deliveries of these partitions: one read over them all, waiting up to
        ``block_ms`` for one (on Redis Cluster, whose slots one read cannot span, a
        pipeline of reads that do not wait)."""
        streams = {self.stream(p).encode(): p for p in partitions}
        if not streams:
            return []
        redis = self.store.redis
        if self.store.settings.cluster:
            pipe = redis.pipeline(transaction=False)
            for key in streams:
                pipe.xreadgroup(GROUP, CONSUMER, {key: ">"}, count=count)
            replies = await pipe.execute()
            return [d for r in replies for d in self._deliveries(r, streams)]
        reply = await redis.xreadgroup(
            GROUP, CONSUMER, dict.fromkeys(streams, ">"), count=count, block=block_ms
        )
        return self._deliveries(reply, streams)

    @staticmethod
    def _deliveries(reply: Any, streams: dict[bytes, int]) -> list[tuple[int, str, Delivery]]:
        out = []
        for key, entries in reply or []:
            for entry_id, fields in entries:
                if fields:  # a pending entry deleted meanwhile comes back empty
                    out.append((streams[key], entry_id.decode(), Delivery.decoded(fields[b"d"])))
        return out

    async def done(self, partition: int, entry_id: str) -> None:
        pipe = self.store.redis.pipeline(transaction=False)
        self.done_in(pipe, partition, entry_id)
        await pipe.execute()

    def done_in(self, pipe: Any, partition: int, entry_id: str) -> None:
        pipe.xack(self.stream(partition), GROUP, entry_id)
        pipe.xdel(self.stream(partition), entry_id)

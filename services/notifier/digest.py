"""The daily e-mail digest: for a player who asked for one mail a day rather than one a
turn, the turns that come are gathered, and at their hour one mail lists those still
theirs (docs/notifications.md).

Each player's turns wait in their partition (by the player's id, as a game's by its id):
``{p:NN}:notify:digest`` (players by when their digest is due) and
``{p:NN}:notify:digest:<player>`` (game id -> the latest turn there). The partition's
notifier owner takes a due digest in one script that enqueues its mail once (the dedup key
names the player and the hour) and removes the turns it listed, so a turn that came
meanwhile waits for the next digest."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, cast

import orjson

from services.core.eventstore import EventStore
from services.notifier.outbox import SENT_TTL_S, Delivery, Outbox
from services.notifier.turns import Turn

HOUR_MS = 3_600_000

# KEYS: 1 players by due time, 2 the player's turns; ARGV: 1 player, 2 game id, 3 turn
# JSON, 4 when the digest is due (kept if one is due already).
ADD = """
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[1], 'NX', ARGV[4], ARGV[1])
return 1
"""

# KEYS: 1 players by due time, 2 the player's turns, 3 the digest's dedup key, 4 the
# outbox; ARGV: 1 player, 2 dedup seconds, 3 the delivery (JSON, "" when no turn is still
# due), 4 the next digest's time, then game id, turn JSON pairs that were read. A turn
# replaced since it was read stays for the next digest.
TAKE = """
for i = 5, #ARGV, 2 do
  if redis.call('HGET', KEYS[2], ARGV[i]) == ARGV[i + 1] then
    redis.call('HDEL', KEYS[2], ARGV[i])
  end
end
if redis.call('HLEN', KEYS[2]) > 0 then
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
if ARGV[3] ~= '' and redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[2]) then
  redis.call('XADD', KEYS[4], '*', 'd', ARGV[3])
  return 1
end
return 0
"""


def next_digest_ms(now_ms: int, hour_utc: int, every_s: float) -> int:
    """The first digest time after ``now_ms``: ``hour_utc`` o'clock each day (with a
    shorter ``every_s``, tests: every such span, counted from that hour)."""
    every_ms = max(1, int(every_s * 1000))
    offset = hour_utc * HOUR_MS % every_ms
    return ((now_ms - offset) // every_ms + 1) * every_ms + offset


class Digests:
    def __init__(self, store: EventStore, outbox: Outbox, every_s: float) -> None:
        self.store, self.outbox, self.every_s = store, outbox, every_s
        self._add = store.redis.register_script(ADD)
        self._take = store.redis.register_script(TAKE)

    def partition(self, player: str) -> int:
        return self.store.keys.partition_of(player)

    def due_key(self, partition: int) -> str:
        return f"{self.store.keys.tag(partition)}:notify:digest"

    def turns_key(self, partition: int, player: str) -> str:
        return f"{self.store.keys.tag(partition)}:notify:digest:{player}"

    async def add(self, player: str, turn: Turn, hour_utc: int, now_ms: int) -> None:
        """A turn for the player's next digest (a later turn of the same game replaces it)."""
        p = self.partition(player)
        due = next_digest_ms(now_ms, hour_utc, self.every_s)
        keys = [self.due_key(p), self.turns_key(p, player)]
        await self._add(keys=keys, args=[player, turn.game_id, orjson.dumps(asdict(turn)), due])

    def due(self, pipe: Any, partition: int, now_ms: int, count: int = 100) -> None:
        """In ``pipe``: the digests due, for ``due_of`` to read."""
        key = self.due_key(partition)
        pipe.zrangebyscore(key, "-inf", now_ms, start=0, num=count, withscores=True)

    @staticmethod
    def due_of(found: list[tuple[bytes, float]]) -> list[tuple[str, int]]:
        """(player, the digest's time) of the digests due: that time names the digest,
        the same for any notifier that takes it."""
        return [(p.decode(), int(at)) for p, at in found]

    async def turns(self, partition: int, player: str) -> dict[str, bytes]:
        raw = await self.store.redis.hgetall(self.turns_key(partition, player))
        return {k.decode(): v for k, v in cast(dict[bytes, bytes], raw).items()}

    async def take(
        self,
        partition: int,
        player: str,
        read: dict[str, bytes],
        digest: Delivery | None,
        next_ms: int,
    ) -> bool:
        """Enqueue the digest (None: nothing left to tell) and remove the turns read;
        whether a mail was enqueued (False: this digest was enqueued before)."""
        told = digest.key if digest else f"digest:{player}:none"
        keys = [
            self.due_key(partition),
            self.turns_key(partition, player),
            f"{self.store.keys.tag(partition)}:notify:sent:{told}",
            self.outbox.stream(partition),
        ]
        args: list[Any] = [player, SENT_TTL_S, digest.encoded() if digest else "", next_ms]
        for game_id, raw in read.items():
            args += [game_id, raw]
        return bool(await self._take(keys=keys, args=args))


def turn_of(raw: bytes) -> Turn:
    return Turn(**orjson.loads(raw))

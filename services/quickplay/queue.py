"""The quick-play queue in Redis, shared by every gateway (which join, cancel and read
tickets) and the matchmaker (which claims tables and seats them). Every key carries the
``{qp}`` hash tag, so each script's keys are on one node of a cluster too.

- ``q:<game>:<size>``: waiting players by the time they joined (a sorted set);
  ``q:<game>:<size>:turn_based`` the same for turn-based tables (docs/quickplay.md);
- ``t:<player>``: a player's ticket: game, size, speed, joined_ms, score, state (waiting,
  matched, seated, cancelled), game_id and seat once matched; ``t:<player>:turn_based``
  their turn-based one (a player may look for a live table and a turn-based one at once);
- ``queues``: every queue that has had a player (``<game>:<size>[:turn_based]``);
  ``wake``: a list a join pushes to, which an idle matchmaker waits on (at most one
  entry); ``matched``: tables claimed and not yet seated (a matchmaker that dies
  between the two leaves them for the next one); ``table:<game id>``: such a table's seats."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from services.core.codec import dumps, loads
from services.core.eventstore import EventStore

TICKET_TTL_S = 24 * 3600  # a ticket's last state stays readable this long (after the wait)
SPEEDS = ("realtime", "turn_based")

JOIN_LUA = """
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'waiting' or state == 'matched' then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'game', ARGV[1], 'size', ARGV[2], 'joined_ms', ARGV[3],
  'score', ARGV[4], 'state', 'waiting', 'speed', ARGV[8])
redis.call('EXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[6])
redis.call('SADD', KEYS[3], ARGV[5])
redis.call('LPUSH', KEYS[4], 1)
redis.call('LTRIM', KEYS[4], 0, 0)
return 1
"""

CANCEL_LUA = """
if redis.call('HGET', KEYS[1], 'state') ~= 'waiting' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'cancelled')
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""

# KEYS: 1 queue, 2 matched set, 3 table record, 4.. each seated player's ticket
# ARGV: 1 game id, 2 table JSON, then per ticket: player, seat
CLAIM_LUA = """
for i = 4, #KEYS do
  if redis.call('HGET', KEYS[i], 'state') ~= 'waiting' then return 0 end
end
for i = 4, #KEYS do
  local player, seat = ARGV[3 + 2 * (i - 4)], ARGV[4 + 2 * (i - 4)]
  redis.call('HSET', KEYS[i], 'state', 'matched', 'game_id', ARGV[1], 'seat', seat)
  redis.call('ZREM', KEYS[1], player)
end
redis.call('SET', KEYS[3], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
"""


@dataclass(frozen=True)
class Table:
    game_id: str
    game: str
    seats: list[str | None]  # a player's id, or None for a bot
    bot_level: str = ""  # the bots' level (chosen when the table was claimed)
    speed: str = "realtime"  # or "turn_based": the game's speed option

    def json(self) -> bytes:
        return dumps(
            {
                "game_id": self.game_id,
                "game": self.game,
                "seats": self.seats,
                "bot_level": self.bot_level,
                "speed": self.speed,
            }
        )


def queue_name(game: str, size: int, speed: str) -> str:
    """A queue's member of ``queues`` (a real-time queue's is as it was before speeds)."""
    return f"{game}:{size}" if speed == "realtime" else f"{game}:{size}:{speed}"


def parse_queue_name(name: str) -> tuple[str, int, str]:
    """(game, size, speed) of a ``queues`` member."""
    speed = "realtime"
    for other in SPEEDS[1:]:
        if name.endswith(":" + other):
            name, speed = name[: -len(other) - 1], other
    game, _, size = name.rpartition(":")
    return game, int(size), speed


class Queue:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.redis = store.redis
        self._join = self.redis.register_script(JOIN_LUA)
        self._cancel = self.redis.register_script(CANCEL_LUA)
        self._claim = self.redis.register_script(CLAIM_LUA)

    def key(self, *parts: str) -> str:
        return ":".join([f"{self.store.settings.key_prefix}:{{qp}}", *parts])

    def queue_key(self, game: str, size: int, speed: str = "realtime") -> str:
        return self.key("q", *queue_name(game, size, speed).split(":"))

    def ticket_key(self, player: str, speed: str = "realtime") -> str:
        return self.key("t", player) if speed == "realtime" else self.key("t", player, speed)

    async def join(
        self,
        player: str,
        game: str,
        size: int,
        now_ms: int,
        score: float,
        speed: str = "realtime",
        wait_s: float = 0,
    ) -> bool:
        """Queue ``player`` for a table of that speed; False when they are waiting (or
        being seated) for one already. The ticket outlives the longest wait
        (``wait_s``, until bots fill the table) by TICKET_TTL_S."""
        keys = [self.ticket_key(player, speed), self.queue_key(game, size, speed)]
        keys.append(self.key("queues"))
        keys.append(self.key("wake"))  # the matchmaker waits on it while no one else waits
        ttl = TICKET_TTL_S + int(wait_s)
        args: list[Any] = [game, size, now_ms, score, queue_name(game, size, speed), player]
        args += [ttl, speed]
        return bool(await self._join(keys=keys, args=args))

    async def ticket(self, player: str, speed: str = "realtime") -> dict[str, Any] | None:
        key = self.ticket_key(player, speed)
        raw = cast(dict[bytes, bytes], await self.redis.hgetall(key))
        if not raw:
            return None
        found: dict[str, Any] = {k.decode(): v.decode() for k, v in raw.items()}
        found.setdefault("speed", "realtime")  # a ticket from before speeds
        found["size"], found["joined_ms"] = int(found["size"]), int(found["joined_ms"])
        found["score"] = float(found["score"])
        if "seat" in found:
            found["seat"] = int(found["seat"])
        return found

    async def position(
        self, player: str, game: str, size: int, speed: str = "realtime"
    ) -> tuple[int, int]:
        """(1-based place by joining time, players waiting) in that queue."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrank(self.queue_key(game, size, speed), player)
        pipe.zcard(self.queue_key(game, size, speed))
        rank, count = await pipe.execute()
        return (0 if rank is None else int(rank) + 1), int(count)

    async def cancel(self, player: str, game: str, size: int, speed: str = "realtime") -> bool:
        keys = [self.ticket_key(player, speed), self.queue_key(game, size, speed)]
        return bool(await self._cancel(keys=keys, args=[player]))

    # -- the matchmaker's side ------------------------------------------------------

    async def queues(self) -> list[tuple[str, int, str]]:
        """(game, size, speed) of every queue."""
        found = cast(set[bytes], await self.redis.smembers(self.key("queues")))
        return [parse_queue_name(member.decode()) for member in sorted(found)]

    async def waiting(
        self, game: str, size: int, speed: str = "realtime"
    ) -> list[tuple[str, int, float]]:
        """(player, joined_ms, score) of everyone waiting in a queue."""
        entries = cast(
            list[tuple[bytes, float]],
            await self.redis.zrange(self.queue_key(game, size, speed), 0, -1, withscores=True),
        )
        if not entries:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for player, _ in entries:
            pipe.hget(self.ticket_key(player.decode(), speed), "score")
        scores = await pipe.execute()
        return [
            (p.decode(), int(joined), float(s or 0))
            for (p, joined), s in zip(entries, scores, strict=True)
        ]

    async def claim(self, table: Table, size: int) -> bool:
        """Take a table's players off the queue for it, if every one still waits."""
        seated = [(p, seat) for seat, p in enumerate(table.seats) if p is not None]
        keys = [
            self.queue_key(table.game, size, table.speed),
            self.key("matched"),
            self.key("table", table.game_id),
            *[self.ticket_key(p, table.speed) for p, _ in seated],
        ]
        args: list[Any] = [table.game_id, table.json()]
        for player, seat in seated:
            args += [player, seat]
        return bool(await self._claim(keys=keys, args=args))

    async def matched(self) -> list[Table]:
        """Tables claimed and not yet seated."""
        ids = cast(set[bytes], await self.redis.smembers(self.key("matched")))
        out = []
        for game_id in sorted(ids):
            raw = await self.redis.get(self.key("table", game_id.decode()))
            if raw:
                found = loads(raw)
                seats, level = found["seats"], found.get("bot_level", "")
                speed = found.get("speed", "realtime")
                out.append(Table(found["game_id"], found["game"], seats, level, speed))
        return out

    async def seated(self, table: Table) -> None:
        """The table's game exists and its players hold their seats: tell them."""
        pipe = self.redis.pipeline(transaction=True)
        for player in table.seats:
            if player is not None:
                pipe.hset(self.ticket_key(player, table.speed), "state", "seated")
        pipe.srem(self.key("matched"), table.game_id)
        pipe.delete(self.key("table", table.game_id))
        await pipe.execute()

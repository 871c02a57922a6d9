"""Who is at the table (docs/fair-table.md): each seat's presence, from the live streams
its player holds open on any gateway replica, kept in Redis so every replica and the
sweeper see the same.

A seat is "connected" while one of its streams is open, "away" since its last stream
closed (or its gateway stopped refreshing its mark: the sweeper closes a crashed
replica's streams once their marks are stale), and "gone" once away longer than
``gone_after_s``: the sweeper (``sweep``, beside the bot runner) then sends the engine
``seat_gone`` and a bot stands in (services.kernel.table). Each change is published on
one channel; every gateway's live hub passes it to the game's streams as a ``presence``
frame. All keys share one hash tag, like the quick-play queue's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import orjson
from redis.asyncio import Redis, RedisCluster

from services.core.eventstore.batching import ScriptBatcher

SCRIPT = (Path(__file__).parent / "presence.lua").read_text()
REFRESH_BATCH = 1000  # marks refreshed by one ZADD


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class PresenceKeys:
    prefix: str

    def streams(self, game_id: str) -> str:
        """Each open stream of the game: "<seat>:<stream id>" -> its last mark (ms)."""
        return f"{self.prefix}:{{pr}}:streams:{game_id}"

    def away(self, game_id: str) -> str:
        """Seat -> since when (ms) no stream of it is open."""
        return f"{self.prefix}:{{pr}}:away:{game_id}"

    @property
    def marks(self) -> str:
        """Every open stream, "<game>|<seat>|<stream id>" -> its last mark: the sweeper
        finds the streams a stopped gateway left behind."""
        return f"{self.prefix}:{{pr}}:marks"

    @property
    def absent(self) -> str:
        """ "<game>|<seat>" -> away since (ms): the sweeper's work list."""
        return f"{self.prefix}:{{pr}}:absent"

    @property
    def channel(self) -> str:
        return f"{self.prefix}:presence"


class Presence:
    def __init__(
        self,
        redis: Redis | RedisCluster,
        prefix: str,
        heartbeat_s: float,
        gone_after_s: float,
        claim_after_s: float = 60.0,
    ) -> None:
        self.redis, self.keys = redis, PresenceKeys(prefix)
        self.claim_after_ms = int(claim_after_s * 1000)
        # A stream unrefreshed for three heartbeats is taken for closed.
        self.stale_ms = int(heartbeat_s * 3000) + 1000
        self.gone_after_ms = int(gone_after_s * 1000)
        # Opening and closing in one round trip each (presence.lua): a pipeline, a read
        # back and a publish per stream cost a gateway most where many short games opened
        # and closed streams.
        self._changed = redis.register_script(SCRIPT)
        # Sent as the engines send appends (services.core.eventstore.batching): packed in C
        # on one connection, with the opens and closes of the same turn of the loop. Each
        # stream's open and close took redis-py's whole path per call (a pool checkout, a
        # retry wrapper, its packer), a large part of opening a stream (bench.stream_opens).
        self.batcher = (
            None
            if isinstance(redis, RedisCluster)
            else ScriptBatcher(redis, self._changed, retry_unconnected=False)
        )

    async def _change(
        self, mode: str, game_id: str, seat: int, stream: str, since: int, turn_based: bool
    ) -> None:
        keys = [self.keys.streams(game_id), self.keys.away(game_id)]
        keys += [self.keys.marks, self.keys.absent]
        now = now_ms()
        args: list[str | int] = [mode, game_id, seat, stream, now, self.gone_after_ms]
        args += [self.keys.channel, since or now, int(turn_based)]
        if self.batcher is not None:
            await self.batcher.run(keys, args)
        else:  # Redis Cluster: one call, routed by its keys' slot
            await self._changed(keys=keys, args=args)

    async def opened(self, game_id: str, seat: int, stream: str, turn_based: bool = False) -> None:
        """A stream opened; at a turn-based game its seats are never marked gone (their
        clocks decide, docs/turn-based.md), which the game's presence keeps from now on."""
        await self._change("open", game_id, seat, stream, 0, turn_based)

    async def refreshed(self, streams: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
        """Open streams (game, seat, stream id) are still open: their marks in the
        sweeper's list say now, one ZADD per ``REFRESH_BATCH`` streams (a gateway's beats,
        gateway.live.beats). Returns those whose mark was no longer there: the sweeper
        closed them while their gateway was frozen; the caller opens them again."""
        missing: list[tuple[str, int, str]] = []
        for start in range(0, len(streams), REFRESH_BATCH):
            batch = streams[start : start + REFRESH_BATCH]
            now = now_ms()
            members = {f"{g}|{seat}|{stream}": now for g, seat, stream in batch}
            changed = int(await self.redis.zadd(self.keys.marks, members, xx=True, ch=True) or 0)
            if changed < len(batch):  # some were not there (or already marked this ms)
                scores = await self.redis.zmscore(self.keys.marks, list(members))
                missing += [s for s, score in zip(batch, scores, strict=True) if score is None]
        return missing

    async def closed(self, game_id: str, seat: int, stream: str, at_ms: int = 0) -> None:
        """A stream ended (``at_ms``: when it was last known open, for a stale one)."""
        await self._change("close", game_id, seat, stream, at_ms, False)

    async def forget(self, game_id: str, seat: int, stream: str) -> None:
        """A stream of a finished game ended: nothing of the seat is kept (in the script,
        as opens and closes: four commands through redis-py's pipeline were a finished
        game's four closes' largest cost)."""
        await self._change("forget", game_id, seat, stream, 0, False)

    async def of(self, game_id: str) -> dict[int, dict[str, Any]]:
        """Each seat with a known presence: state ("connected", "away", "gone"), since.
        A turn-based game's seats are connected or away, with nothing to come."""
        now = now_ms()
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrange(self.keys.streams(game_id), 0, -1)
        pipe.hgetall(self.keys.away(game_id))
        marks, away = await pipe.execute()
        out: dict[int, dict[str, Any]] = {}
        if away.pop(b"turn_based", None) is not None:
            away_since = {int(seat): int(since) for seat, since in away.items()}
            out = {s: {"state": "away", "since_ms": t} for s, t in away_since.items()}
            away = {}
        for raw_seat, raw_since in away.items():
            since = int(raw_since)
            gone = now - since >= self.gone_after_ms
            # What comes next, and when: a bot stands in at gone_at_ms; at a table of two
            # the other player may claim the win from claim_from_ms (docs/fair-table.md).
            gone_at = since + self.gone_after_ms
            out[int(raw_seat)] = {
                "state": "gone" if gone else "away",
                "since_ms": since,
                "gone_at_ms": gone_at,
                "claim_from_ms": gone_at + self.claim_after_ms,
            }
        for m in marks:
            out[int(m.decode().split(":", 1)[0])] = {"state": "connected", "since_ms": 0}
        return out

    async def announce(self, game_id: str) -> None:
        seats = await self.of(game_id)
        body = {"game_id": game_id, "seats": [{"seat": s, **p} for s, p in sorted(seats.items())]}
        await self.redis.publish(self.keys.channel, orjson.dumps(body))

    # -- the sweeper's ------------------------------------------------------------------

    async def stale_streams(self) -> list[tuple[str, int, str, int]]:
        """Streams nobody refreshed (their gateway stopped): game, seat, stream, last mark."""
        old = cast(
            list[tuple[bytes, float]],
            await self.redis.zrangebyscore(
                self.keys.marks, 0, now_ms() - self.stale_ms, withscores=True
            ),
        )
        out = []
        for member, score in old:
            game_id, seat, stream = member.decode().split("|")
            out.append((game_id, int(seat), stream, int(score)))
        return out

    async def gone(self) -> list[tuple[str, int, int]]:
        """Seats away past the setting: game, seat, away since."""
        due = cast(
            list[tuple[bytes, float]],
            await self.redis.zrangebyscore(
                self.keys.absent, 0, now_ms() - self.gone_after_ms, withscores=True
            ),
        )
        return [(*_game_seat(m.decode()), int(s)) for m, s in due]

    async def settled(self, game_id: str, seat: int) -> None:
        await self.redis.zrem(self.keys.absent, f"{game_id}|{seat}")


def _game_seat(member: str) -> tuple[str, int]:
    game_id, seat = member.split("|")
    return game_id, int(seat)

"""The retention policy (RAFFE_RETAIN_FINISHED_S): finished games leave the hot store.

A game's read models are stored with its end time in the partition's ``ended`` set.
Once it has been over for the retention period, the archiver (run by the projection for
the partitions it owns) compacts its stream and command ids into one compressed archive
value (EventStore.archive: replay, views and events read from it alike, through the
engine), and drops its read models and lobby entries; the archive itself is kept
RAFFE_ARCHIVE_TTL_S (0: for ever), and with it the game's metadata, seats and seat
tokens: after that the game is gone whole. The partition log, which copies every event for the
projection, is trimmed to what the projection had folded a retention period ago: older
events of games still running remain in their own streams, from which a rebuild loads
a game it first meets mid-log."""

from __future__ import annotations

import logging
import time
from typing import cast

from prometheus_client import Counter

from services.core.eventstore import EventStore
from services.projection.keys import ReadModelKeys
from services.projection.readmodels import TOURNAMENTS

log = logging.getLogger(__name__)
ARCHIVED = Counter("raffe_games_archived_total", "Finished games compacted into archives")
BATCH = 200  # games archived per partition per run


class Archiver:
    def __init__(self, store: EventStore, retain_s: int) -> None:
        self.store, self.retain_ms = store, retain_s * 1000
        self.keys = ReadModelKeys(store.keys)

    async def run(self, checkpoints: dict[int, int], gen: int) -> int:
        """Archive what is due in the given partitions (the caller owns them) and trim
        their logs; returns the number of games archived."""
        now = int(time.time() * 1000)
        archived = 0
        for partition, checkpoint in checkpoints.items():
            archived += await self._archive_due(partition, now, gen)
            await self._trim_log(partition, checkpoint, now)
        return archived

    async def _archive_due(self, partition: int, now: int, gen: int) -> int:
        redis, ended = self.store.redis, self.keys.ended(partition)
        due = cast(
            list[bytes],
            await redis.zrangebyscore(ended, 0, now - self.retain_ms, start=0, num=BATCH),
        )
        done = 0
        for raw in due:
            game_id = raw.decode()
            meta = await self.store.meta(game_id)
            if meta is not None and not await self._archived(game_id):
                if not await self.store.archive(game_id, meta.version):
                    continue  # it moved on (cannot, once over; but never lose an event)
                await self._tokens_go_with(game_id)
                done += 1
            pipe = redis.pipeline(transaction=False)
            pipe.delete(self.keys.game(gen, game_id))
            pipe.zrem(self.keys.lobby(gen, partition), game_id)
            pipe.zrem(self.keys.lobby(gen, partition, TOURNAMENTS), game_id)
            pipe.zrem(ended, game_id)
            await pipe.execute()
        ARCHIVED.inc(done)
        return done

    async def _tokens_go_with(self, game_id: str) -> None:
        """The game's seat tokens expire with its archive, not RAFFE_TOKEN_TTL_S (a
        month) after they were handed out: no token outlives its game's last trace."""
        ttl_ms = self.store.archive_ttl_s * 1000
        if not ttl_ms:
            return
        keys, redis = self.store.keys, self.store.redis
        pipe = redis.pipeline(transaction=False)
        pipe.smembers(keys.bound_tokens(game_id))
        pipe.hgetall(keys.seats(game_id))
        bound, seats = await pipe.execute()
        digests = set(bound) | {v for k, v in seats.items() if k.startswith(b"token:")}
        token_keys = [keys.token(d.decode()) for d in sorted(digests)]
        pipe = redis.pipeline(transaction=False)
        for key in token_keys:
            pipe.pttl(key)
        left = await pipe.execute()
        pipe = redis.pipeline(transaction=False)
        for key, ms in zip(token_keys, left, strict=True):
            if ms == -1 or ms > ttl_ms:  # -2: gone already
                pipe.pexpire(key, ttl_ms)
        await pipe.execute()

    async def _archived(self, game_id: str) -> bool:
        return bool(await self.store.redis.hget(self.store.keys.meta(game_id), "archived"))

    async def _trim_log(self, partition: int, checkpoint: int, now: int) -> None:
        """Note where the projection is now; trim the log below where it was a retention
        period ago."""
        redis, marks = self.store.redis, self.keys.marks(partition)
        await redis.zadd(marks, {str(checkpoint): now})
        old = cast(
            list[bytes],
            await redis.zrevrangebyscore(marks, now - self.retain_ms, 0, start=0, num=1),
        )
        if old:
            position = int(old[0])
            # Exact (not ~): entries up to that position were folded long ago.
            log_key = self.store.keys.log(partition)
            await redis.xtrim(log_key, minid=f"{position + 1}-0", approximate=False)
            await redis.zremrangebyscore(marks, 0, now - self.retain_ms - 1)
            await redis.zadd(marks, {str(position): now - self.retain_ms})

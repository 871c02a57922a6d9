"""How many games (and tournaments) one client may create per hour, shared by every
gateway replica (a counter in Redis per address and hour). Every game is kept for its
retention period, so creation, not request rate, is what fills Redis: at the per-address
request rate alone one address could fill a 2 GiB Redis in about 18 minutes."""

from __future__ import annotations

import hashlib
import time

from gateway.http.problems import Problem
from services.core.eventstore import EventStore

HOUR_S = 3600


async def counted(store: EventStore, key: str, ttl_s: int) -> int:
    """One more against a counter shared by every gateway; its new value."""
    pipe = store.redis.pipeline(transaction=False)
    pipe.incr(key)
    pipe.expire(key, ttl_s)
    count, _ = await pipe.execute()
    return int(count)


def _who(address: str) -> str:
    return hashlib.sha256(address.encode()).hexdigest()[:24]


class JoinLimits:
    """Joins of open tournaments: at most ``per_address`` entrants one address adds to
    one tournament, and at most ``per_minute`` joins of one tournament a minute from
    everyone (so no one address, nor a crowd of them in seconds, fills someone else's
    tournament; its organiser may remove entrants before the start)."""

    def __init__(self, store: EventStore, per_address: int, per_minute: int) -> None:
        self.store, self.per_address, self.per_minute = store, per_address, per_minute

    async def take(self, tournament_id: str, address: str, command_id: str | None = None) -> None:
        prefix = f"{self.store.settings.key_prefix}:quota:join:{tournament_id}"
        if command_id and not await self._first(prefix, command_id):
            return  # a join sent again (after a 503, a lost answer) was counted once
        if await counted(self.store, f"{prefix}:{_who(address)}", 7 * 24 * 3600) > (
            self.per_address
        ):
            raise Problem(
                429,
                "too_many_joins",
                f"at most {self.per_address} entrants from one address in a tournament",
                retry_after=3600,
            )
        now = int(time.time())
        if await counted(self.store, f"{prefix}:{now // 60}", 120) > self.per_minute:
            raise Problem(
                429,
                "joins_busy",
                "this tournament takes no more joins this minute",
                retry_after=60 - now % 60,
            )

    async def _first(self, prefix: str, command_id: str) -> bool:
        """Whether this join's command id is new here (a day's memory: resends come
        within seconds). Another join cannot reuse the id: the engine refuses it."""
        key = f"{prefix}:sent:{_who(command_id)}"
        return bool(await self.store.redis.set(key, 1, nx=True, ex=24 * 3600))


class CreateQuota:
    def __init__(self, store: EventStore, per_hour: int) -> None:
        self.store, self.per_hour = store, per_hour

    async def take(self, address: str) -> None:
        """Count one creation against ``address``, or refuse it (429, Retry-After: when
        the hour turns)."""
        now = int(time.time())
        key = f"{self.store.settings.key_prefix}:quota:create:{now // HOUR_S}:{_who(address)}"
        if await counted(self.store, key, HOUR_S + 60) > self.per_hour:
            raise Problem(
                429,
                "quota_exceeded",
                f"at most {self.per_hour} games an hour from one address",
                retry_after=HOUR_S - now % HOUR_S,
            )

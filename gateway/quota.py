"""How many games (and tournaments) one client may create per hour, shared by every
gateway replica (a counter in Redis per address and hour). Every game is kept for its
retention period, so creation, not request rate, is what fills Redis: at the per-address
request rate alone one address could fill a 2 GiB Redis in about 18 minutes."""

from __future__ import annotations

import hashlib
import time

from gateway.problems import Problem
from services.core.eventstore import EventStore

HOUR_S = 3600


class CreateQuota:
    def __init__(self, store: EventStore, per_hour: int) -> None:
        self.store, self.per_hour = store, per_hour

    async def take(self, address: str) -> None:
        """Count one creation against ``address``, or refuse it (429, Retry-After: when
        the hour turns)."""
        now = int(time.time())
        who = hashlib.sha256(address.encode()).hexdigest()[:24]
        key = f"{self.store.settings.key_prefix}:quota:create:{now // HOUR_S}:{who}"
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, HOUR_S + 60)
        count, _ = await pipe.execute()
        if int(count) > self.per_hour:
            raise Problem(
                429,
                "quota_exceeded",
                f"at most {self.per_hour} games an hour from one address",
                retry_after=HOUR_S - now % HOUR_S,
            )

"""Appending typed events (``@event`` dataclasses) to a stream that is not a game's: an
account's, a challenge's. They share the event store, its expected versions and its
partition logs with the games; only their decisions live elsewhere (the gateway)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any

from services.core.codec import dumps
from services.core.eventstore import EventStore, NewEvent
from services.core.ids import random_uuid
from services.kernel.events import payload


def now_ms() -> int:
    return int(time.time() * 1000)


async def append_typed(
    store: EventStore,
    stream_id: str,
    aggregate: str,
    version: int,
    events: Sequence[Any],
    engine_version: str,
    attended: bool = False,
) -> int:
    """The events appended at ``version`` (VersionConflict if the stream moved on);
    their time (ms). Nothing to append appends nothing."""
    now = now_ms()
    if not events:
        return now
    new = [NewEvent(random_uuid(), type(e).__name__, dumps(payload(e))) for e in events]
    await store.append(
        stream_id,
        aggregate,
        version,
        uuid.uuid4().hex,
        new,
        time_ms=now,
        engine_version=engine_version,
        attended=attended,
    )
    return now

"""Small builders for event-store tests."""

from __future__ import annotations

import json
import uuid
from typing import Any

from services.core.eventstore import AppendResult, EventStore, NewEvent


def ev(type_: str = "ThingHappened", **payload: Any) -> NewEvent:
    return NewEvent(id=str(uuid.uuid4()), type=type_, payload=json.dumps(payload).encode())


def cmd() -> str:
    return "cmd-" + uuid.uuid4().hex


async def append(
    store: EventStore,
    game: str,
    expected: int,
    *events: NewEvent,
    command_id: str | None = None,
    attended: bool = False,
) -> AppendResult:
    return await store.append(
        game,
        "test-game",
        expected,
        command_id or cmd(),
        list(events) or [ev()],
        time_ms=1_700_000_000_000,
        engine_version="test-1",
        attended=attended,
    )


async def snapshot(store: EventStore) -> dict[bytes, bytes]:
    """Every key of the store's prefix with its DUMP: equal snapshots mean nothing changed."""
    pattern = store.settings.key_prefix + ":*"
    keys = [k async for k in store.redis.scan_iter(match=pattern, count=1000)]
    return {k: await store.redis.dump(k) for k in sorted(keys)}

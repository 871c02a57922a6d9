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


async def append_played(
    store: EventStore, game_id: str, game_type: str, events: list[Any], time_ms: int = 1
) -> None:
    """A game played in memory (domain events), appended one event per command, as the
    engine would have appended its commands' events."""
    from services.core.codec import to_new

    for version, event in enumerate(events):
        await store.append(
            game_id,
            game_type,
            version,
            f"c{version}",
            [to_new(event)],
            time_ms=time_ms + version,
            engine_version="test-1",
        )

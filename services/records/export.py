"""Finished games for the bulk export (GET /v1/records): one scan of the game metas,
filtered by kind and end time (a finished game's meta is last updated by its GameEnded),
then each game's events read, archived ones included. Read on demand, for researchers:
nothing is kept for it on the command path."""

from __future__ import annotations

from collections.abc import AsyncIterator

from services.core.eventstore import EventStore, StoredEvent
from services.records.document import is_finished

BATCH = 200  # metas read per round trip


async def finished(
    store: EventStore, game: str, since_ms: int, until_ms: int
) -> AsyncIterator[list[StoredEvent]]:
    """The events of each finished game of kind ``game`` (any, if empty) that ended in
    [since_ms, until_ms), oldest first."""
    pattern = f"{store.settings.key_prefix}:{{p:*}}:game:*:meta"
    names = [key.decode() async for key in store.redis.scan_iter(match=pattern, count=1000)]
    due: list[tuple[int, str]] = []
    for start in range(0, len(names), BATCH):
        chunk = names[start : start + BATCH]
        pipe = store.redis.pipeline(transaction=False)
        for name in chunk:
            pipe.hmget(name, ["type", "updated"])
        for name, (kind, updated) in zip(chunk, await pipe.execute(), strict=True):
            if kind is None or updated is None or (game and kind.decode() != game):
                continue
            if since_ms <= int(updated) < until_ms:
                due.append((int(updated), name.rsplit(":game:", 1)[1].removesuffix(":meta")))
    for _, game_id in sorted(due):
        stored = await store.read_game(game_id)
        if is_finished(stored):
            yield stored

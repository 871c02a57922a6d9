"""Rebuild every read model from position 0 of every partition log into a new
generation, then switch readers and workers over to it (DESIGN §4).

    python -m services.projection rebuild
"""

from __future__ import annotations

import asyncio
import sys

from services.core.eventstore import EventStore
from services.projection.consumer import fold_batch
from services.projection.folding import Folder, model
from services.projection.readmodels import NO_FENCE, ReadModels

BATCH = 1000
SWITCH_GRACE = 1.0  # seconds between switching generations and deleting the old one


async def rebuild(store: EventStore, progress: bool = False) -> int:
    """Returns the new generation, once it is caught up and switched to."""
    models = ReadModels(store)
    gen = await models.generation() + 1
    folder = Folder(store)
    total = sum(await store.partition_heads(range(store.settings.partitions)))
    done = 0
    for p in range(store.settings.partitions):
        done += await _catch_up(store, models, folder, gen, p)
        if progress:
            print(f"\rrebuild: {done}/{total} events", end="", file=sys.stderr)
    # Catch up once more with what arrived meanwhile, then switch.
    for p in range(store.settings.partitions):
        done += await _catch_up(store, models, folder, gen, p)
    await store.redis.set(models.keys.generation, gen)
    if progress:
        print(f"\rrebuild: {done} events into generation {gen}, switched", file=sys.stderr)
    await asyncio.sleep(SWITCH_GRACE)  # workers notice the switch within half a second
    removed = await drop_generation(store, gen - 1)
    if progress:
        print(f"rebuild: removed {removed} keys of generation {gen - 1}", file=sys.stderr)
    return gen


async def drop_generation(store: EventStore, gen: int) -> int:
    """Delete the read models of an old generation (every partition, every node)."""
    pattern = f"{store.settings.key_prefix}:{{p:*}}:rm:{gen}:*"
    removed = 0
    batch: list[bytes] = []
    async for key in store.redis.scan_iter(match=pattern, count=1000):
        batch.append(key)
        if len(batch) >= 500:
            removed += await _unlink(store, batch)
            batch = []
    return removed + (await _unlink(store, batch) if batch else 0)


async def _unlink(store: EventStore, keys: list[bytes]) -> int:
    # One key per call: on a cluster the keys of a batch live in many slots.
    pipe = store.redis.pipeline(transaction=False)
    for key in keys:
        pipe.unlink(key)
    return sum(await pipe.execute())


async def _catch_up(store: EventStore, models: ReadModels, folder: Folder, gen: int, p: int) -> int:
    position = await models.checkpoint(gen, p)
    count = 0
    while events := await store.read_partition(p, position, BATCH):
        touched = await fold_batch(folder, events)
        games = [model(gid, f) for gid, f in touched.items()]
        await models.save(gen, p, NO_FENCE, events[-1].position, games)
        position = events[-1].position
        count += len(events)
    return count

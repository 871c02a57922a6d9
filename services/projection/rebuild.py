"""Rebuild every read model from position 0 of every partition log into a new
generation, then switch readers and workers over to it (DESIGN §4).

    python -m services.projection rebuild
"""

from __future__ import annotations

import sys

from services.core.eventstore import EventStore
from services.projection.consumer import fold_batch
from services.projection.folding import Folder, model
from services.projection.readmodels import NO_FENCE, ReadModels

BATCH = 1000


async def rebuild(store: EventStore, progress: bool = False) -> int:
    """Returns the new generation, once it is caught up and switched to."""
    models = ReadModels(store)
    gen = await models.generation() + 1
    folder = Folder(store)
    total = sum([await store.partition_head(p) for p in range(store.settings.partitions)])
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
    return gen


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

"""The projection worker: folds the partitions it owns into the read models of the
current generation, each batch stored with its checkpoint under the partition's fence."""

from __future__ import annotations

import logging
import time

from prometheus_client import Counter, Gauge

from services.core.eventstore import EventStore, StoredEvent
from services.core.worker import PartitionWorker
from services.projection.folding import Folded, Folder, model
from services.projection.readmodels import ReadModels

log = logging.getLogger(__name__)
EVENTS = Counter("raffe_projection_events_total", "Events folded into read models")
LAG = Gauge("raffe_projection_lag_events", "Partition-log events not yet projected", ["partition"])


class Projector(PartitionWorker):
    coalesce_s = 0.03  # read models lag up to 30 ms more; readers fall back to the engine

    def __init__(self, store: EventStore, ttl_ms: int = 5000) -> None:
        super().__init__(store, "proj", ttl_ms)
        self.models = ReadModels(store)
        self.folder = Folder(store)
        self.gen = 1
        self._gen_checked = 0.0

    async def load_checkpoint(self, partition: int) -> int:
        return await self.models.checkpoint(self.gen, partition)

    async def tick(self) -> None:
        """Follow a rebuild's switch to a new generation, and report lag."""
        now = time.monotonic()
        if now - self._gen_checked < 0.5:
            return
        self._gen_checked = now
        gen = await self.models.generation()
        if gen != self.gen:
            log.info("switching generation", extra={"from": self.gen, "to": gen})
            self.gen = gen
            for p in list(self.checkpoints):
                self.checkpoints[p] = await self.load_checkpoint(p)
        for p, cp in self.checkpoints.items():
            LAG.labels(str(p)).set(await self.store.partition_head(p) - cp)

    async def handle(self, partition: int, fence: int, events: list[StoredEvent]) -> bool:
        touched = await fold_batch(self.folder, events)
        games = [model(gid, f) for gid, f in touched.items()]
        result = await self.models.save(self.gen, partition, str(fence), events[-1].position, games)
        EVENTS.inc(len(events))
        return result != "fenced"


async def fold_batch(folder: Folder, events: list[StoredEvent]) -> dict[str, Folded]:
    touched: dict[str, Folded] = {}
    for event in events:
        folded = await folder.apply(event)
        if folded is not None:
            touched[event.game_id] = folded
    return touched

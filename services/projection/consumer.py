"""The projection worker: folds the partitions it owns into the read models of the
current generation, each batch stored with its checkpoint under the partition's fence."""

from __future__ import annotations

import logging
import time

from prometheus_client import Counter, Gauge

from services.core.eventstore import EventStore, StoredEvent
from services.core.worker import Batch, PartitionWorker
from services.projection.archive import Archiver
from services.projection.feed import Feeds
from services.projection.folding import Folded, Folder, model
from services.projection.readmodels import ReadModels, Save
from services.ratings.rater import Rater

log = logging.getLogger(__name__)
EVENTS = Counter("raffe_projection_events_total", "Events folded into read models")
# Every owned partition's head is read for the lag gauge: a scrape every 15 s and an alert
# on minutes of lag need it this often, not with every generation check (2/s).
LAG_EVERY_S = 5.0
LAG = Gauge("raffe_projection_lag_events", "Partition-log events not yet projected", ["partition"])


class Projector(PartitionWorker):
    # Under load, read models lag up to this much more, for much less of the projection's
    # CPU (one model built per game per batch instead of per move: docs/decisions,
    # "followers share round trips").
    # An event after a quiet spell is folded at once; readers that ask for a newer
    # version (min_version) wait or fall back to the engine.
    coalesce_s = 0.1

    def __init__(
        self, store: EventStore, ttl_ms: int = 5000, cache_bytes: int = 128 * 1024 * 1024
    ) -> None:
        super().__init__(store, "proj", ttl_ms)
        self.models = ReadModels(store)
        self.folder = Folder(store, cache_bytes)
        self.archiver = Archiver(store, store.settings.retain_finished_s)
        self.rater = Rater(store)
        self.feeds = Feeds(store)  # the players' account streams (docs/bot-api.md)
        self.gen = 1
        self._gen_checked = 0.0
        self._lag_reported = 0.0
        self._archived_at = 0.0
        self.archive_every_s = store.settings.archive_every_s  # RAFFE_ARCHIVE_EVERY_S

    def forget(self) -> None:
        self.folder.games.clear()

    async def load_checkpoint(self, partition: int) -> int:
        return await self.models.checkpoint(self.gen, partition)

    async def tick(self) -> None:
        """Follow a rebuild's switch to a new generation, report lag, and now and then
        apply the retention policy to the partitions owned."""
        now = time.monotonic()
        if now - self._archived_at >= self.archive_every_s:
            self._archived_at = now
            await self.archiver.run(dict(self.checkpoints), self.gen)
        if now - self._gen_checked < 0.5:
            return
        self._gen_checked = now
        gen = await self.models.generation()
        if gen != self.gen:
            log.info("switching generation", extra={"from": self.gen, "to": gen})
            self.gen = gen
            for p in list(self.checkpoints):
                self.checkpoints[p] = await self.load_checkpoint(p)
        if now - self._lag_reported >= LAG_EVERY_S:
            self._lag_reported = now
            await self.report_lag()

    async def report_lag(self) -> None:
        """Events each owned partition's log holds beyond its checkpoint, as a gauge."""
        parts = list(self.checkpoints)
        for p, head in zip(parts, await self.store.partition_heads(parts), strict=True):
            LAG.labels(str(p)).set(head - self.checkpoints[p])

    async def handle_all(self, batches: dict[int, Batch]) -> dict[int, bool]:
        """Fold every partition's batch, then store them all in one round trip (each
        with its checkpoint, under its own fence)."""
        saves = []
        for p, (fence, events) in batches.items():
            touched = await fold_batch(self.folder, events)
            await self.rate_ended(events, touched)
            await self.feeds.post(events)
            games = [model(gid, f) for gid, f in touched.items()]
            saves.append(Save(p, str(fence), events[-1].position, games))
            EVENTS.inc(len(events))
        results = await self.models.save_many(self.gen, saves)
        return {s.partition: r != "fenced" for s, r in zip(saves, results, strict=True)}

    async def rate_ended(self, events: list[StoredEvent], touched: dict[str, Folded]) -> None:
        """Rate the games that ended in this batch (services.ratings: once per game, so a
        batch seen again rates nothing twice)."""
        for e in events:
            folded = touched.get(e.game_id)
            if e.type == "GameEnded" and folded is not None and folded.version == e.version:
                await self.rater.rate(
                    e.game_id, folded.game, folded.created, folded.state, e.time_ms
                )


async def fold_batch(folder: Folder, events: list[StoredEvent]) -> dict[str, Folded]:
    touched: dict[str, Folded] = {}
    for event in events:
        folded = await folder.apply(event)
        if folded is not None:
            touched[event.game_id] = folded
    return touched

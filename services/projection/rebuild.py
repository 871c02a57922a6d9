"""Rebuild every read model from position 0 of every partition log into a new
generation, then switch readers and workers over to it (DESIGN §4).

    python -m services.projection rebuild

Retention trims the partition logs (services.projection.archive), so a log may no longer
hold every game that is still kept: a game idle since before the trim (an open table
nobody joined, a tournament waiting for players) has no entry left in it. Each game's
own stream is its record, so before reading a trimmed log the rebuild folds, from their
streams, the partition's games that are kept hot (not archived), stored at the log's
trim point; the log then adds what follows. Archived games get no read models, as the
archiver left them live.

    trimmed log:  [trim point] e(n+1) e(n+2) ...   <- read as before
    kept games:   every non-archived game of the partition, folded from its stream
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass

from services.core.eventstore import EventStore
from services.projection.consumer import fold_batch
from services.projection.folding import Folder, model
from services.projection.readmodels import (
    GAMES_ONLY,
    NO_FENCE,
    TOURNAMENTS,
    GameModel,
    ReadModels,
)

BATCH = 1000
TRIMMED_BATCH = 200  # games folded from their streams per save
SWITCH_GRACE = 1.0  # seconds between switching generations and deleting the old one


async def rebuild(store: EventStore, progress: bool = False) -> int:
    """Returns the new generation, once it is caught up and switched to."""
    models = ReadModels(store)
    gen = await models.generation() + 1
    folder = Folder(store)
    total = sum(await store.partition_heads(range(store.settings.partitions)))
    kept = await kept_games(store)
    done = 0
    for p in range(store.settings.partitions):
        await _fold_trimmed(store, models, folder, gen, p, kept.get(p, []))
        done += await _catch_up(store, models, folder, gen, p)
        if progress:
            print(f"\rrebuild: {done}/{total} events", end="", file=sys.stderr)
    # Catch up once more with what arrived meanwhile, then switch.
    for p in range(store.settings.partitions):
        done += await _catch_up(store, models, folder, gen, p)
    await _drop_archived(store, models, gen, kept)
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


@dataclass(frozen=True)
class KeptGame:
    game_id: str
    game_type: str
    version: int
    archived: bool


async def kept_games(store: EventStore) -> dict[int, list[KeptGame]]:
    """Every game the store holds, by partition (one scan of the game metas)."""
    pattern = f"{store.settings.key_prefix}:{{p:*}}:game:*:meta"
    names = [key.decode() async for key in store.redis.scan_iter(match=pattern, count=1000)]
    out: dict[int, list[KeptGame]] = {}
    for start in range(0, len(names), BATCH):
        chunk = names[start : start + BATCH]
        pipe = store.redis.pipeline(transaction=False)
        for name in chunk:
            pipe.hmget(name, ["type", "version", "archived"])
        for name, (kind, version, archived) in zip(chunk, await pipe.execute(), strict=True):
            if kind is None or version is None:
                continue
            game_id = name.rsplit(":game:", 1)[1].removesuffix(":meta")
            game = KeptGame(game_id, kind.decode(), int(version), bool(archived))
            out.setdefault(store.partition_of(game_id), []).append(game)
    return out


async def _fold_trimmed(
    store: EventStore, models: ReadModels, folder: Folder, gen: int, p: int, kept: list[KeptGame]
) -> None:
    """When the partition's log was trimmed, its kept games from their own streams,
    stored as of the trim point (the log's first entry or, emptied, its head)."""
    first = await store.read_partition(p, 0, 1)  # the log's first append's events
    head = await store.partition_head(p)
    trim_point = first[0].position - 1 if first else head
    hot = [g for g in kept if not g.archived]
    if trim_point <= 0 or not hot:
        return
    for start in range(0, len(hot), TRIMMED_BATCH):
        games: list[GameModel] = []
        for g in hot[start : start + TRIMMED_BATCH]:
            folded = await folder.load(g.game_id, g.game_type, g.version)
            if folded is not None and folded.version:
                games.append(model(g.game_id, folded))
        await models.save(gen, p, NO_FENCE, GAMES_ONLY, games)
    await models.save(gen, p, NO_FENCE, trim_point, [])  # the log from there


async def _drop_archived(
    store: EventStore, models: ReadModels, gen: int, kept: dict[int, list[KeptGame]]
) -> None:
    """Archived games have no read models (the archiver dropped them live): a log not
    yet trimmed past them must not bring them back."""
    pipe = store.redis.pipeline(transaction=False)
    for p, games in kept.items():
        for g in games:
            if g.archived:
                pipe.delete(models.keys.game(gen, g.game_id))
                pipe.zrem(models.keys.lobby(gen, p), g.game_id)
                pipe.zrem(models.keys.lobby(gen, p, TOURNAMENTS), g.game_id)
                pipe.zrem(models.keys.ended(p), g.game_id)
    await pipe.execute()


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

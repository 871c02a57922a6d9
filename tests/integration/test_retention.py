"""The retention policy (#16 item 8): a finished game past its retention period is
compacted into one archive value; everything read from it stays the same (events,
replay, views), its read models and lobby entries go, the partition log is trimmed, and
the game takes a fraction of the memory it took."""

from __future__ import annotations

import asyncio

import pytest

from services.core.errors import VersionConflict
from services.core.eventstore import EventStore
from services.core.runtime import GameRuntime
from services.giraffometer.bots import BOTS
from services.giraffometer.game import GAME
from services.kernel.game import SeatSpec
from services.kernel.playthrough import play_bots
from services.projection.archive import Archiver
from services.projection.consumer import fold_batch
from services.projection.folding import Folder, model
from services.projection.keys import ReadModelKeys
from services.projection.readmodels import ReadModels
from services.projection.service import replay_view
from tests.eventstore_helpers import append_played


async def used_memory(store: EventStore, game_id: str) -> int:
    """Bytes Redis spends on the game's own keys and its share of the partition log."""
    total = 0
    async for key in store.redis.scan_iter(match=f"{store.keys.game(game_id)}*"):
        total += await store.redis.memory_usage(key) or 0
    return total


async def test_a_finished_game_is_archived_and_reads_the_same(store: EventStore) -> None:
    store = EventStore(store.redis, store.settings.model_copy(update={"partitions": 4}))
    played = play_bots(GAME, [BOTS["normal"]] * 3, "retention")
    game_id, p = "archived-game", store.partition_of("archived-game")
    await append_played(store, game_id, GAME.name, played.events, time_ms=1_000)
    log = await store.read_partition(p, 0, 10_000)
    models, keys = ReadModels(store), ReadModelKeys(store.keys)
    touched = await fold_batch(Folder(store), log)
    await models.save(1, p, "-", log[-1].position, [model(g, f) for g, f in touched.items()])
    assert await store.redis.zscore(keys.ended(p), game_id) is not None
    runtime = GameRuntime(GAME, store)
    before = (
        await store.read_game(game_id),
        await replay_view(store, game_id, 1, 20),
        (await runtime.view(game_id, 0))[1],
        await used_memory(store, game_id),
    )

    assert await Archiver(store, retain_s=0).run({p: log[-1].position}, gen=1) == 1

    fresh = GameRuntime(GAME, store)  # nothing cached: everything comes from the archive
    after = (
        await store.read_game(game_id),
        await replay_view(store, game_id, 1, 20),
        (await fresh.view(game_id, 0))[1],
        await used_memory(store, game_id),
    )
    assert after[:3] == before[:3]
    assert not await store.redis.exists(store.keys.game(game_id), store.keys.commands(game_id))
    assert after[3] < before[3] / 3, (before[3], after[3])  # events compress well
    assert not await store.redis.exists(keys.game(1, game_id))
    assert await store.redis.zscore(keys.lobby(1, p), game_id) is None
    assert await store.redis.zscore(keys.ended(p), game_id) is None
    # The log is trimmed below where the projection was a retention period (0 s) ago.
    assert await store.read_partition(p, 0, 10_000) == []
    # Archiving again changes nothing; a create cannot reuse the id.
    assert await Archiver(store, retain_s=0).run({p: log[-1].position}, gen=1) == 0
    assert (await store.read_game(game_id)) == before[0]
    with pytest.raises(VersionConflict):  # the store's version check: the game exists
        await runtime.create([SeatSpec("bot")] * 3, {}, game_id=game_id, command_id="again")


async def test_a_game_within_its_retention_stays_hot(store: EventStore) -> None:
    played = play_bots(GAME, [BOTS["normal"]] * 2, "kept")
    p = store.partition_of("kept-game")
    await append_played(store, "kept-game", GAME.name, played.events, 2_000_000_000_000)
    log = await store.read_partition(p, 0, 10_000)
    touched = await fold_batch(Folder(store), log)
    await ReadModels(store).save(
        1, p, "-", log[-1].position, [model(g, f) for g, f in touched.items()]
    )
    assert await Archiver(store, retain_s=3600).run({p: log[-1].position}, gen=1) == 0
    assert await store.redis.exists(store.keys.game("kept-game"))
    assert len(await store.read_partition(p, 0, 10_000)) == len(log)


async def test_a_game_kept_for_a_time_goes_whole_with_its_tokens(store: EventStore) -> None:
    """With RAFFE_ARCHIVE_TTL_S the archive expires, and with it the game's metadata,
    seats and seat tokens (a meta and seats kept for ever, and tokens kept a month, made
    Redis grow 14% an hour in the soak): after that no key names the game."""
    store = EventStore(store.redis, store.settings.model_copy(update={"archive_ttl_s": 1}))
    played = play_bots(GAME, [BOTS["normal"]] * 2, "goes")
    game_id, p = "goes-game", store.partition_of("goes-game")
    await append_played(store, game_id, GAME.name, played.events, time_ms=1_000)
    keys, month = store.keys, 30 * 24 * 3600
    await store.redis.hset(keys.seats(game_id), mapping={"kind:0": "human", "token:0": "d0"})
    await store.redis.sadd(keys.bound_tokens(game_id), "d0", "d1")  # d1: a tournament's
    for digest in ("d0", "d1", "unrelated"):
        await store.redis.set(keys.token(digest), f"{game_id} 0", ex=month)
    log = await store.read_partition(p, 0, 10_000)
    touched = await fold_batch(Folder(store), log)
    await ReadModels(store).save(
        1, p, "-", log[-1].position, [model(g, f) for g, f in touched.items()]
    )
    assert await Archiver(store, retain_s=0).run({p: log[-1].position}, gen=1) == 1

    for key in (keys.archive(game_id), keys.meta(game_id), keys.seats(game_id)):
        assert 0 < await store.redis.pttl(key) <= 1000, key
    for digest in ("d0", "d1"):
        assert 0 < await store.redis.pttl(keys.token(digest)) <= 1000
    assert await store.redis.ttl(keys.token("unrelated")) > month - 60  # not this game's
    await asyncio.sleep(1.2)
    left = [k async for k in store.redis.scan_iter(match=f"*{game_id}*")]
    assert left == []
    assert not await store.redis.exists(keys.token("d0"), keys.token("d1"))
    assert await store.read_game(game_id) == []

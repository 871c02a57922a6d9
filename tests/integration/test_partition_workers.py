"""Partition ownership and fenced read models, on a real Redis."""

from __future__ import annotations

import asyncio

from services.core.eventstore import EventStore, StoredEvent
from services.core.partitions import PartitionLeases
from services.core.worker import BOT_GROUP, NOTIFY_GROUP, TOURNAMENT_GROUP, CheckpointedWorker
from services.projection.readmodels import GameModel, ReadModels, Save
from tests.eventstore_helpers import append, append_played, ev


def small(store: EventStore, partitions: int = 8) -> EventStore:
    return EventStore(store.redis, store.settings.model_copy(update={"partitions": partitions}))


async def test_two_workers_split_the_partitions_and_a_survivor_takes_over(
    store: EventStore,
) -> None:
    s = small(store)
    a = PartitionLeases(s, "proj", ttl_ms=300)
    b = PartitionLeases(s, "proj", ttl_ms=300)
    await a.refresh()
    await b.refresh()
    for _ in range(3):  # a gives back what is over its share once b shows up
        await a.refresh()
        await b.refresh()
    assert set(a.owned).isdisjoint(b.owned)
    assert len(a.owned) == len(b.owned) == 4
    fences = dict(b.owned)
    await asyncio.sleep(0.5)  # a dies: no more heartbeats, its leases expire
    for _ in range(2):
        await b.refresh()
    assert set(b.owned) == set(range(8))
    taken = set(b.owned) - set(fences)
    assert all(b.owned[p] >= 2 for p in taken)  # a new fencing token for each takeover


class Idle(CheckpointedWorker):
    async def work(self, partition: int, events: list[StoredEvent]) -> bool:
        return False


async def test_a_worker_short_of_its_share_looks_again_at_once(store: EventStore) -> None:
    """A worker joining finds its share still held by the first, which gives it back at
    its own next refresh; the newcomer then looked again only a third of a lease period
    later (and after a blocked read): those partitions' games waited ~2 s. While short of
    its share it now refreshes every 0.1 s and reads no longer than that."""
    s = small(store)
    first, joining = Idle(s, BOT_GROUP, 6000), Idle(s, BOT_GROUP, 6000)
    await first.leases.refresh()
    await joining.leases.refresh()
    assert len(first.leases.owned) == 8 and joining.leases.wanting
    assert joining.refresh_every_s() == 0.1 and joining._block_ms() == 100
    assert first.refresh_every_s() == 2.0 and first._block_ms() == 500
    await first.leases.refresh()  # gives back what is over its share
    await joining.leases.refresh()
    assert len(joining.leases.owned) == 4 and not joining.leases.wanting
    assert joining.refresh_every_s() == 2.0 and joining._block_ms() == 500


async def test_a_share_rounded_up_is_not_wanted(store: EventStore) -> None:
    """Three workers over 8 partitions hold 3, 3 and 2: the one with 2 is not short
    (else it would refresh ten times a second for good)."""
    s = small(store)
    workers = [PartitionLeases(s, "proj", ttl_ms=5000) for _ in range(3)]
    for _ in range(4):
        for w in workers:
            await w.refresh()
    assert sorted(len(w.owned) for w in workers) == [2, 3, 3]
    assert not any(w.wanting for w in workers)


async def test_three_workers_share_partitions_unevenly_without_overlap(store: EventStore) -> None:
    """Taking tries as many free partitions as are missing in one round trip; those
    another worker holds are skipped and the next free ones tried."""
    s = small(store)
    workers = [PartitionLeases(s, "proj", ttl_ms=5000) for _ in range(3)]
    for _ in range(4):
        for w in workers:
            await w.refresh()
    owned = [set(w.owned) for w in workers]
    assert sorted(len(o) for o in owned) == [2, 3, 3]
    assert set().union(*owned) == set(range(8))
    assert sum(len(o) for o in owned) == 8  # disjoint
    assert all(fence >= 1 for w in workers for fence in w.owned.values())


async def test_a_fenced_out_worker_cannot_store_and_redelivery_changes_nothing(
    store: EventStore,
) -> None:
    s = small(store)
    models = ReadModels(s)
    old = PartitionLeases(s, "proj", ttl_ms=200)
    await old.refresh()
    p = min(old.owned)
    stale_fence = str(old.owned[p])
    game = GameModel("g1", 3, {"game_id": "g1", "updated_ms": 1}, {-1: {"seen": 3}})
    assert await models.save(1, p, stale_fence, 10, [game]) == "ok"
    assert await models.save(1, p, stale_fence, 10, [game]) == "stale"  # redelivered
    await asyncio.sleep(0.3)
    new = PartitionLeases(s, "proj", ttl_ms=200)
    await new.refresh()
    assert p in new.owned and str(new.owned[p]) != stale_fence
    newer = GameModel("g1", 4, {"game_id": "g1", "updated_ms": 2}, {-1: {"seen": 4}})
    assert await models.save(1, p, stale_fence, 11, [newer]) == "fenced"
    assert await models.public_view(1, "g1") == (3, {"seen": 3})
    assert await models.checkpoint(1, p) == 10


async def test_batches_of_several_partitions_are_fenced_each_on_its_own(
    store: EventStore,
) -> None:
    """The projection stores a step's partitions in one round trip; a partition another
    worker took over is refused alone, the others are stored."""
    s = small(store)
    models = ReadModels(s)
    leases = PartitionLeases(s, "proj", ttl_ms=5000)
    await leases.refresh()
    mine, lost = sorted(leases.owned)[:2]
    await s.redis.incr(leases.fence_key(lost))  # a new owner's fencing token
    games = [GameModel(g, 1, {"game_id": g}, {-1: {"at": g}}) for g in ("a", "b")]
    results = await models.save_many(
        1,
        [
            Save(mine, str(leases.owned[mine]), 5, [games[0]]),
            Save(lost, str(leases.owned[lost]), 6, [games[1]]),
        ],
    )
    assert results == ["ok", "fenced"]
    assert await models.public_view(1, "a") == (1, {"at": "a"})
    assert await models.public_view(1, "b") is None
    assert (await models.checkpoint(1, mine), await models.checkpoint(1, lost)) == (5, 0)


class Noting(CheckpointedWorker):
    """A runner of one of the attending groups that notes what it read."""

    def __init__(self, store: EventStore, group: str) -> None:
        super().__init__(store, group, ttl_ms=2000)
        self.read: list[tuple[str, int]] = []

    async def work(self, partition: int, events: list[StoredEvent]) -> bool:
        self.read += [(e.game_id, e.version) for e in events]
        return True  # busy: checkpointed at once


async def test_runners_read_attended_games_only_and_trim_what_all_groups_passed(
    store: EventStore,
) -> None:
    s = small(store, partitions=1)
    bots, tourn, notify = Noting(s, BOT_GROUP), Noting(s, TOURNAMENT_GROUP), Noting(s, NOTIFY_GROUP)
    for game, attended in (("followed", True), ("humans-only", False)):
        await append(s, game, 0, ev(), attended=attended)
        await append(s, game, 1, ev(), ev())  # later appends follow the creation's choice
    key = s.keys.attended(0)
    assert await bots.step()
    assert bots.read == [("followed", 1), ("followed", 2), ("followed", 3)]
    assert await s.redis.xlen(key) == 2  # two appends; the tournament group has not read them
    assert await tourn.step()
    assert tourn.read == bots.read
    assert await s.redis.xlen(key) == 2  # the notifier's group has not read them either
    assert await notify.step()
    assert notify.read == bots.read
    assert await s.redis.xlen(key) == 1  # all passed: all but the last entry trimmed
    await append(s, "followed", 3, ev())
    assert await bots.step() and await tourn.step() and await notify.step()
    assert bots.read[-1] == tourn.read[-1] == notify.read[-1] == ("followed", 4)
    assert len(await s.read_partition(0, 0)) == 7  # the log itself keeps everything


async def test_the_projection_forgets_finished_games_and_keeps_its_byte_bound(
    store: EventStore,
) -> None:
    """#16 item 8: the fold cache is bounded by bytes, and a game that ends leaves it."""
    from services.giraffe_raffe.bots import random_bot
    from services.giraffe_raffe.game import GAME as GR
    from services.kernel.playthrough import play_bots
    from services.projection.folding import Folder

    folder = Folder(store, cache_bytes=200_000)
    for n in range(6):
        played = play_bots(GR, [random_bot] * 3, f"cache-{n}")
        await append_played(store, f"g{n}", GR.name, played.events)
        stored = await store.read_game(f"g{n}")
        for e in stored[:-1]:
            await folder.apply(e)
        assert folder.games.bytes <= 200_000 or len(folder.games) == 1
        await folder.apply(stored[-1])  # GameEnded
        assert f"g{n}" not in folder.games


async def test_a_worker_renews_every_lease_in_one_call_and_drops_those_it_lost(
    store: EventStore,
) -> None:
    s = small(store)
    worker = PartitionLeases(s, "proj", ttl_ms=5000)
    await worker.refresh()
    assert set(worker.owned) == set(range(8))
    await store.redis.set(worker.lease_key(3), "another worker")  # lost while paused
    await store.redis.pexpire(worker.lease_key(5), 1)
    stats = await store.redis.info("commandstats")
    before = stats["cmdstat_evalsha"]["calls"]
    await asyncio.sleep(0.01)
    await worker.refresh()  # renews 6, loses 3 for good; 5 had expired: taken again
    after = (await store.redis.info("commandstats"))["cmdstat_evalsha"]["calls"]
    assert after - before == 1
    assert set(worker.owned) == set(range(8)) - {3}
    assert await store.redis.pttl(worker.lease_key(0)) > 4000


async def test_a_lease_lost_and_taken_again_reads_from_the_stored_checkpoint(
    store: EventStore,
) -> None:
    """#51 item 2: Redis hung past a lease: the worker loses it and takes it again at
    once (a new fence). Work it gave up meanwhile (a bot runner's game, whose events it
    had read) is behind the stored checkpoint only: it reads from there again, not from
    where its memory was (it went on from there before, and the game stalled)."""
    s = small(store, 2)
    worker = Idle(s, BOT_GROUP, 6000)
    await worker._owned()
    fence = worker.leases.owned[0]
    await s.redis.set(worker.checkpoint_key(0), 5)
    worker.checkpoints[0] = 9  # read past what is stored
    await s.redis.delete(worker.leases.lease_key(0))  # expired while Redis hung
    worker._last_refresh = 0.0
    await worker._owned()
    assert worker.leases.owned[0] > fence  # taken again, under a new fence
    assert worker.checkpoints[0] == 5


async def test_an_idle_batchs_checkpoint_is_saved_when_the_log_falls_quiet(
    store: EventStore,
) -> None:
    """Idle batches are checkpointed together at most every second; when no later batch
    came to make that round, the checkpoint stayed behind what was read until the next
    event (the notifier's benchmark found its checkpoints unsaved, the attended log
    untrimmed). Now a quiet step makes the round."""
    s = small(store, partitions=1)
    worker = Idle(s, BOT_GROUP, 6000)
    await append(s, "quiet", 0, ev(), attended=True)
    assert await worker.step()  # the first round: saved at once
    await append(s, "quiet", 1, ev(), attended=True)
    assert await worker.step()  # within the second: kept for the next round
    key = worker.checkpoint_key(0)
    assert int(await s.redis.get(key) or 0) < worker.checkpoints[0]
    worker.checkpoint_every_s = 0.05
    await asyncio.sleep(0.1)
    assert not await worker.step()  # nothing new; the round is made anyway
    assert int(await s.redis.get(key) or 0) == worker.checkpoints[0]

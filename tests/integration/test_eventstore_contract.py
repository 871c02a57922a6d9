"""The event-store contract (DESIGN §3), on Redis 7, Redis 6.2 and a 3-primary cluster."""

from __future__ import annotations

import asyncio
import uuid
from collections import defaultdict

import pytest

from services.core.errors import EventTooLarge, VersionConflict
from services.core.eventstore import EventStore
from services.core.eventstore.store import log_events
from tests.eventstore_helpers import append, cmd, ev, snapshot


def game_id() -> str:
    return "g" + uuid.uuid4().hex[:16]


async def test_first_append_creates_the_game_at_version_1(any_store: EventStore) -> None:
    g = game_id()
    result = await append(any_store, g, 0, ev("GameCreated", seats=3))
    assert (result.version, result.count, result.duplicate) == (1, 1, False)
    meta = await any_store.meta(g)
    assert meta is not None
    assert (meta.version, meta.game_type, meta.partition) == (1, "test-game", result.partition)
    events = await any_store.read_game(g)
    assert [(e.version, e.type) for e in events] == [(1, "GameCreated")]
    assert events[0].command_id and events[0].engine_version == "test-1"


async def test_stale_expected_version_conflicts_and_writes_nothing(any_store: EventStore) -> None:
    g = game_id()
    await append(any_store, g, 0, ev(), ev())
    before = await snapshot(any_store)
    for stale in (0, 1, 3, 99):
        with pytest.raises(VersionConflict) as info:
            await append(any_store, g, stale, ev())
        assert info.value.current == 2
    assert await snapshot(any_store) == before


async def test_a_batch_is_all_or_nothing(any_store: EventStore) -> None:
    g = game_id()
    await append(any_store, g, 0, ev())
    before = await snapshot(any_store)
    oversized = ev("Big", blob="x" * (any_store.settings.max_event_bytes + 1))
    with pytest.raises(EventTooLarge):
        await append(any_store, g, 1, ev("A"), ev("B"), oversized)
    assert await snapshot(any_store) == before
    result = await append(any_store, g, 1, ev("A"), ev("B"), ev("C"))
    assert (result.first_version, result.version) == (2, 4)
    assert [e.type for e in await any_store.read_game(g, after_version=1)] == ["A", "B", "C"]


@pytest.mark.parametrize("retry_expected", ["stale", "current"])
async def test_retried_command_id_returns_the_original_result(
    any_store: EventStore, retry_expected: str
) -> None:
    g = game_id()
    command_id = cmd()
    first = await append(any_store, g, 0, ev("A"), ev("B"), command_id=command_id)
    await append(any_store, g, 2, ev("C"))
    before = await snapshot(any_store)
    expected = 0 if retry_expected == "stale" else 3
    again = await append(any_store, g, expected, ev("A2"), command_id=command_id)
    assert again.duplicate
    assert (again.version, again.first_position, again.count) == (
        first.version,
        first.first_position,
        first.count,
    )
    assert await snapshot(any_store) == before


async def test_racing_writers_win_each_version_exactly_once(any_store: EventStore) -> None:
    g = game_id()
    await append(any_store, g, 0, ev("Created"))
    target = 120
    wins: list[tuple[int, int]] = []

    async def writer(w: int) -> None:
        while True:
            current = await any_store.version(g)
            if current >= target:
                return
            try:
                result = await append(any_store, g, current, ev("Moved", writer=w))
            except VersionConflict as conflict:
                assert conflict.current > current
                continue
            wins.append((result.version, w))

    await asyncio.gather(*(writer(w) for w in range(16)))
    versions = sorted(v for v, _ in wins)
    assert versions == list(range(2, target + 1))
    events = await any_store.read_game(g)
    assert [e.version for e in events] == list(range(1, target + 1))
    assert len({e.id for e in events}) == target
    winner_of = dict(wins)
    for e in events[1:]:
        assert e.payload == f'{{"writer": {winner_of[e.version]}}}'.encode()


async def test_every_event_once_in_its_partition_log_in_game_order(
    any_store: EventStore,
) -> None:
    games = [game_id() for _ in range(40)]
    appended: dict[str, list[str]] = defaultdict(list)
    versions = dict.fromkeys(games, 0)
    for round_ in range(5):
        for i, g in enumerate(games):
            batch = [ev("E", r=round_) for _ in range(1 + (i + round_) % 3)]
            result = await append(any_store, g, versions[g], *batch)
            versions[g] = result.version
            appended[g] += [e.id for e in batch]

    partitions = {any_store.partition_of(g) for g in games}
    seen: dict[str, list[str]] = defaultdict(list)
    for p in partitions:
        log = await any_store.read_partition(p, 0, count=100_000)
        assert [e.position for e in log] == list(range(1, len(log) + 1))
        assert await any_store.partition_head(p) == len(log)
        for e in log:
            assert any_store.partition_of(e.game_id) == p
            seen[e.game_id].append(e.id)
            assert e.version == len(seen[e.game_id])
    assert dict(seen) == dict(appended)


async def test_read_partition_blocks_until_an_event_arrives(any_store: EventStore) -> None:
    g = game_id()
    p = any_store.partition_of(g)
    head = await any_store.partition_head(p)
    assert await any_store.read_partition(p, head, block_ms=50) == []

    async def later() -> None:
        await asyncio.sleep(0.1)
        await append(any_store, g, 0, ev("Late"))

    task = asyncio.create_task(later())
    got = await any_store.read_partition(p, head, block_ms=5000)
    await task
    assert [(e.game_id, e.type, e.position) for e in got] == [(g, "Late", head + 1)]


async def test_the_partition_log_keeps_an_entry_per_append_and_resumes_inside_one(
    any_store: EventStore,
) -> None:
    """An append of three events is one log entry, under its last position; its events
    keep a position each, and a reader resuming at the first of them reads the other two.
    A large append (beyond what is announced live) is in the log whole."""
    g = game_id()
    p = any_store.partition_of(g)
    log_key = any_store.keys.log(p)
    entries_before = await any_store.redis.xlen(log_key)
    done = await append(any_store, g, 0, ev("A"), ev("B"), ev("C"))
    assert await any_store.redis.xlen(log_key) == entries_before + 1
    (last_id, _), *_ = await any_store.redis.xrevrange(log_key, count=1)
    assert last_id == f"{done.last_position}-0".encode()
    events = await any_store.read_partition(p, done.first_position - 1)
    assert [(e.type, e.version, e.position) for e in events] == [
        ("A", 1, done.first_position),
        ("B", 2, done.first_position + 1),
        ("C", 3, done.first_position + 2),
    ]
    later = await any_store.read_partition(p, done.first_position)
    assert [(e.type, e.position) for e in later] == [
        ("B", done.first_position + 1),
        ("C", done.last_position),
    ]
    big = [ev("Big", blob="x" * 9000), ev("Big", blob="y" * 9000)]  # 18 KB: announced as a version
    large = await append(any_store, g, 3, *big)
    read = await any_store.read_partition(p, large.first_position - 1)
    assert [e.payload for e in read] == [e.payload for e in big]
    assert (await any_store.read_game(g, 3))[1].payload == big[1].payload


async def test_a_log_written_an_entry_per_event_is_still_read(any_store: EventStore) -> None:
    """Logs written before an entry held an append (one entry per event, its own fields)
    read as they did: a projection rebuilding from an older log loses nothing."""
    g = game_id()
    p = any_store.partition_of(g)
    done = await append(any_store, g, 0, ev("New"))
    fields = {"g": g, "v": 2, "y": "test-game", "i": "old-1", "t": "Old", "s": 1, "p": b"{}"}
    fields |= {"a": -1, "c": "c-old", "m": 5, "e": "test-0"}
    await any_store.redis.xadd(any_store.keys.log(p), fields, id=f"{done.last_position + 1}-0")
    read = await any_store.read_partition(p, done.first_position - 1)
    assert [(e.type, e.version, e.position, e.actor) for e in read] == [
        ("New", 1, done.first_position, -1),
        ("Old", 2, done.last_position + 1, -1),
    ]


async def test_read_game_range_reads_a_window(any_store: EventStore) -> None:
    g = game_id()
    await append(any_store, g, 0, *[ev("E", n=n) for n in range(10)])
    window = await any_store.read_game_range(g, 3, 6)
    assert [e.version for e in window] == [4, 5, 6]
    assert [e.version for e in await any_store.read_game(g, 8)] == [9, 10]
    assert await any_store.read_game("nosuchgame") == []
    assert await any_store.meta("nosuchgame") is None


async def test_an_empty_window_is_empty_without_a_round_trip(
    any_store: EventStore, store: EventStore
) -> None:
    """A reader already at the window's end (a stream opening at the current version)
    gets nothing, and asks Redis nothing: it had cost a read of the stream and, that
    being empty, one of the archive."""
    g = game_id()
    await append(any_store, g, 0, *[ev("E", n=n) for n in range(3)])
    assert await any_store.read_game_range(g, 3, 3) == []
    assert await any_store.read_game_range(g, 3, 1) == []
    h = game_id()  # on the one Redis whose commands are counted
    await append(store, h, 0, ev("E", n=0))
    before = await _reads(store)
    assert await store.read_game_range(h, 1, 1) == []
    assert await _reads(store) == before
    assert [e.version for e in await store.read_game_range(h, 0, 1)] == [1]
    assert await _reads(store) > before


async def _reads(store: EventStore) -> int:
    stats = await store.redis.info("commandstats")
    return sum(int(stats.get(f"cmdstat_{c}", {}).get("calls", 0)) for c in ("xrange", "get"))


async def test_a_game_created_before_the_attended_log_counts_as_attended(
    any_store: EventStore,
) -> None:
    """Its meta has no record either way: runners keep following it rather than lose it."""
    g = game_id()
    await append(any_store, g, 0)
    await any_store.redis.hdel(any_store.keys.meta(g), "attended")
    await append(any_store, g, 1, ev(), ev())
    entries = await any_store.redis.xrange(any_store.keys.attended(any_store.partition_of(g)))
    assert [e.version for e in log_events(entries) if e.game_id == g] == [2, 3]


async def test_a_games_type_is_read_from_redis_once(store: EventStore) -> None:
    """A live stream reads a game's new events on every move: its type (fixed when the
    game is created) comes from the store's memory after the first read, so each read is
    one round trip. Shown by removing it from Redis after the first read."""
    g = game_id()
    await append(store, g, 0, ev("GameCreated"), ev("Moved"))
    assert [e.game_type for e in await store.read_game(g)] == ["test-game"] * 2
    await store.redis.hdel(store.keys.meta(g), "type")
    assert [e.game_type for e in await store.read_game(g, 1)] == ["test-game"]
    other = EventStore(store.redis, store.settings)  # a process that never read the game
    assert [e.game_type for e in await other.read_game(g, 1)] == [""]

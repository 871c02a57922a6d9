"""bench.engine_work measures what it says: every scripted command goes through the
engine and is appended (a move the engine refused would end the run), on a real Redis."""

from __future__ import annotations

from bench.engine_work import chain_moves, figures, raffe_moves, rounds_on
from services.core.eventstore import EventStore


async def test_both_sides_append_every_move_they_time(store: EventStore) -> None:
    got = await rounds_on(store, moves=40, rounds=2)
    assert [len(runs) for runs in got.values()] == [2, 2]
    assert all(cpu > 0 and wall > 0 for runs in got.values() for cpu, wall in runs)
    versions = await _versions(store)  # this test's store only (its own key prefix)
    chain = sum(v for g, v in versions.items() if g.startswith("chain-"))
    assert chain == 2 * 40  # one event an append
    # Each Raffe move appended at least one event after its game's creation.
    assert sum(v for g, v in versions.items() if not g.startswith("chain-")) >= 2 * 40
    names = [f.name for f in figures(got)]
    assert "raffe's own work over the chain's" in names


async def test_every_scripted_command_of_a_raffe_run_appends(store: EventStore) -> None:
    work = await raffe_moves(store, 30)
    before = await _versions(store)  # the games as created, before any move
    await work()
    after = await _versions(store)
    appended = sum(version - before.get(game, 0) for game, version in after.items())
    assert appended >= 30  # each of the 30 moves appended at least one event


async def test_a_chain_run_appends_one_event_per_request(store: EventStore) -> None:
    work = await chain_moves(store, 61)
    await work()
    versions = await _versions(store)
    chain = sorted(v for g, v in versions.items() if g.startswith("chain-"))
    assert chain == [1, 60]


async def _versions(store: EventStore) -> dict[str, int]:
    """game id -> version, of every game of this test's store."""
    found: dict[str, int] = {}
    async for key in store.redis.scan_iter(match=f"{store.keys.prefix}*:meta"):
        game = key.decode().rsplit(":", 2)[-2]
        found[game] = int(await store.redis.hget(key, "version") or 0)
    return found

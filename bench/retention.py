"""Memory per finished game in Redis, hot and archived (#16 item 8).

    python -m bench.retention [--short]

Plays bot games of each kind in memory, appends their events as the engines do, folds
them into the read models as the projection does, and sums the memory of every key
after each step: per game hot (stream, command ids, meta, partition log copy, read models) and
after the retention policy archived it (one compressed value; the log trimmed, read
models dropped). The baseline is the hot figure of the same run."""

from __future__ import annotations

import argparse
import asyncio
import sys

from bench.common import Figure, print_table, write_json
from services.core.codec import to_new
from services.core.eventstore import EventStore, open_store
from services.core.local_redis import RedisServer
from services.core.settings import StoreSettings
from services.games import GAMES
from services.kernel.playthrough import play_bots
from services.projection.archive import Archiver
from services.projection.consumer import fold_batch
from services.projection.folding import Folder, model
from services.projection.readmodels import ReadModels

SEATS = {"giraffe-raffe": 3, "giraffometer": 4, "riff-raff": 3}


async def used(store: EventStore) -> int:
    """The bytes every key takes (MEMORY USAGE summed): the dataset, without the
    allocator's and the clients' buffers, which blur a per-game figure."""
    total = 0
    async for key in store.redis.scan_iter(count=1000):
        total += await store.redis.memory_usage(key, samples=0) or 0
    return total


async def play_and_store(store: EventStore, game: str, n: int) -> None:
    g = GAMES[game]
    for i in range(n):
        played = play_bots(g, [GAMES[game].bot("")] * SEATS[game], f"{game}-{i}")
        for version, event in enumerate(played.events):
            await store.append(
                f"{game}-{i}",
                game,
                version,
                f"c{version}",
                [to_new(event)],
                time_ms=1_000,
                engine_version="bench",
            )
        if (i + 1) % 10 == 0:
            print(f"\r{game}: {i + 1}/{n} games", end="", file=sys.stderr)
    print(file=sys.stderr)


async def project(store: EventStore) -> dict[int, int]:
    models, folder, checkpoints = ReadModels(store), Folder(store), {}
    for p in range(store.settings.partitions):
        log = await store.read_partition(p, 0, 1_000_000)
        if log:
            touched = await fold_batch(folder, log)
            games = [model(gid, f) for gid, f in touched.items()]
            await models.save(1, p, "-", log[-1].position, games)
            checkpoints[p] = log[-1].position
    return checkpoints


async def measure(game: str, n: int) -> list[Figure]:
    server = RedisServer().start()
    try:
        store = await open_store(StoreSettings(redis_url=server.url, partitions=8))
        empty = await used(store)
        await play_and_store(store, game, n)
        events_only = await used(store)
        checkpoints = await project(store)
        hot = await used(store)
        await Archiver(store, retain_s=0).run(checkpoints, gen=1)
        archived = await used(store)
        await store.redis.aclose()
    finally:
        server.stop()

    def per(used: float) -> float:
        return (used - empty) / n / 1024  # KiB per game

    return [
        Figure(f"{game}: events only, per game", per(events_only), "KiB"),
        Figure(f"{game}: hot (with read models), per game", per(hot), "KiB"),
        Figure(
            f"{game}: archived, per game",
            per(archived),
            "KiB",
            "hot",
            per(archived) / per(hot),
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--short", action="store_true")
    args = parser.parse_args(argv)
    n = 20 if args.short else 200
    figures = [f for game in SEATS for f in asyncio.run(measure(game, n))]
    print_table(f"Redis memory per finished game ({n} bot games of each kind)", figures)
    write_json("retention", figures)


if __name__ == "__main__":
    main()

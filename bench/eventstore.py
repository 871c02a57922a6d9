"""Event store throughput: single-event appends (Lua, expected version, command id,
partition log) against raw XADD round trips with the same client, on the same
redis-server, in the same run.

    python -m bench.eventstore [--short] [--fsync always|everysec]
"""

from __future__ import annotations

import argparse
import asyncio
import uuid

from redis.asyncio import Redis

from bench.common import Figure, print_table, rate, write_json
from services.core.eventstore import EventStore, NewEvent
from services.core.local_redis import RedisServer, server_version
from services.core.settings import StoreSettings

PAYLOAD = b'{"tree": "pair", "cards": ["r7", "b7"], "reward": "redraw"}'


async def measure(url: str, writers: int, count: int, seconds: float) -> tuple[float, float]:
    client = Redis.from_url(url, max_connections=64)
    store = EventStore(client, StoreSettings(key_prefix="bench" + uuid.uuid4().hex[:6]))
    versions = [0] * writers
    games = [f"bench-{uuid.uuid4().hex[:10]}" for _ in range(writers)]

    async def append_one(w: int) -> None:
        event = NewEvent(id=str(uuid.uuid4()), type="CardsPlayed", payload=PAYLOAD, actor=0)
        result = await store.append(
            games[w],
            "bench",
            versions[w],
            uuid.uuid4().hex,
            [event],
            time_ms=1,
            engine_version="bench",
        )
        versions[w] = result.version

    async def xadd_one(w: int) -> None:
        await client.xadd(f"raw:{games[w]}", {"t": "CardsPlayed", "p": PAYLOAD})

    raw = await rate(xadd_one, writers, count, seconds, f"raw XADD x{writers}")
    appends = await rate(append_one, writers, count, seconds, f"append x{writers}")
    await client.aclose()
    return appends, raw


async def run(short: bool, fsync: str) -> list[Figure]:
    server = RedisServer(appendonly=True, appendfsync=fsync).start()
    count, seconds = (2_000, 5.0) if short else (20_000, 30.0)
    figures: list[Figure] = []
    try:
        print(f"redis {server_version(server.binary)}, appendfsync={fsync}")
        for writers in (1, 32):
            appends, raw = await measure(server.url, writers, count, seconds)
            figures.append(Figure(f"raw XADD, {writers} writers", raw, "ops/s"))
            figures.append(
                Figure(
                    f"append (1 event), {writers} writers",
                    appends,
                    "appends/s",
                    f"raw XADD x{writers}",
                    appends / raw,
                )
            )
    finally:
        server.stop()
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--fsync", choices=["always", "everysec"], default="always")
    args = parser.parse_args(argv)
    figures = asyncio.run(run(args.short, args.fsync))
    print_table("event store", figures)
    print(f"written to {write_json('eventstore', figures)}")


if __name__ == "__main__":
    main()

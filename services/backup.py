"""``python -m services.backup FILE``: a snapshot of a running system's Redis (docs/operations.md).

``redis-cli --rdb`` asks Redis for a full resynchronisation, as a new replica would, and
writes the RDB it streams: the primary keeps serving, nothing is paused, and what is
saved is one consistent moment of every game, account, rating and read model. Restore it
into a fresh Redis with ``python -m services.launcher --restore FILE`` (locally), or by
placing it as ``dump.rdb`` in an empty data directory (docs/operations.md). Reads
RAFFE_REDIS_URL and RAFFE_REDIS_PASSWORD; under Sentinel (RAFFE_REDIS_SENTINELS) it copies
a replica, so the primary spends nothing on it. A Redis Cluster is backed up primary by
primary (not by this command)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from redis.sentinel import Sentinel

from services.core.eventstore.connect import sentinels
from services.core.local_redis import find_binary
from services.core.settings import StoreSettings


def save(out: Path, settings: StoreSettings) -> int:
    if settings.cluster:
        print("a Redis Cluster is backed up primary by primary (docs/operations.md)")
        return 2
    env = {**os.environ}
    if settings.redis_password:
        env["REDISCLI_AUTH"] = settings.redis_password  # never on the command line
    started = time.monotonic()
    source = ["-u", settings.redis_url]
    shown = settings.redis_url.split("@")[-1]
    if settings.redis_sentinels:
        host, port = replica_of(settings)
        source, shown = ["-h", host, "-p", str(port)], f"replica {host}:{port}"
    print(f"backing up {shown} to {out} ...", flush=True)
    done = subprocess.run(
        [find_binary("redis-cli"), *source, "--rdb", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0 or not out.exists():
        print(f"backup failed: {done.stderr.strip() or done.stdout.strip()}", flush=True)
        return 1
    size = out.stat().st_size
    took = time.monotonic() - started
    print(f"saved {size / 1e6:.1f} MB in {took:.1f} s: {out}", flush=True)
    return 0


def replica_of(settings: StoreSettings) -> tuple[str, int]:
    """Under Sentinel, a replica the sentinels count healthy (the primary then spends
    nothing on the copy); the primary if none is."""
    watchers = Sentinel(sentinels(settings), socket_timeout=2)  # type: ignore[no-untyped-call, unused-ignore]
    replicas = watchers.discover_slaves(settings.redis_service)  # type: ignore[no-untyped-call, unused-ignore]
    if replicas:
        return str(replicas[0][0]), int(replicas[0][1])
    host, port = watchers.discover_master(settings.redis_service)  # type: ignore[no-untyped-call, unused-ignore]
    return str(host), int(port)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    return save(Path(argv[0]), StoreSettings())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

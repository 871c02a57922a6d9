"""``python -m services.backup FILE``: a snapshot of a running system's Redis (docs/operations.md).

``redis-cli --rdb`` asks Redis for a full resynchronisation, as a new replica would, and
writes the RDB it streams: the primary keeps serving, nothing is paused, and what is
saved is one consistent moment of every game, account, rating and read model. Restore it
into a fresh Redis with ``python -m services.launcher --restore FILE`` (locally), or by
placing it as ``dump.rdb`` in an empty data directory (docs/operations.md). Reads
RAFFE_REDIS_URL and RAFFE_REDIS_PASSWORD; under Sentinel (RAFFE_REDIS_SENTINELS) it copies
a replica that holds everything the primary had when the backup began, so the primary
spends nothing on it (waiting up to CATCH_UP_S for one; the primary if none catches up).
A Redis Cluster is backed up primary by primary (not by this command)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from redis import Redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry
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


CATCH_UP_S = 30.0  # how long a backup waits for a replica to hold what the primary had


def replica_of(settings: StoreSettings, catch_up_s: float = CATCH_UP_S) -> tuple[str, int]:
    """Under Sentinel, a replica that holds everything the primary had when the backup
    began (the primary then spends nothing on the copy), waiting up to ``catch_up_s`` for
    one; the primary if none does. A replica the sentinels count healthy may still be
    loading its first copy after a failover (then it holds nothing), or be behind: a
    backup of it would silently lack the latest games."""
    watchers = Sentinel(sentinels(settings), socket_timeout=2)  # type: ignore[no-untyped-call, unused-ignore]
    host, port = watchers.discover_master(settings.redis_service)  # type: ignore[no-untyped-call, unused-ignore]
    wanted = int(_replication(settings, host, port)["master_repl_offset"])
    deadline = time.monotonic() + catch_up_s
    while True:
        for replica in watchers.discover_slaves(settings.redis_service):  # type: ignore[no-untyped-call, unused-ignore]
            if _holds(settings, str(replica[0]), int(replica[1]), wanted):
                return str(replica[0]), int(replica[1])
        if time.monotonic() >= deadline:
            print("no replica holds what the primary had: copying the primary", flush=True)
            return str(host), int(port)
        time.sleep(0.2)


def _holds(settings: StoreSettings, host: str, port: int, offset: int) -> bool:
    """Whether the replica follows its primary (link up, no resync under way) and has
    applied its replication stream up to ``offset``."""
    try:
        info = _replication(settings, host, port)
    except RedisError:
        return False
    return (
        info.get("role") == "slave"
        and info.get("master_link_status") == "up"
        and int(info.get("master_sync_in_progress", 1)) == 0
        and int(info.get("slave_repl_offset", -1)) >= offset
    )


def _replication(settings: StoreSettings, host: str, port: int) -> dict[str, Any]:
    password = settings.redis_password or urlparse(settings.redis_url).password or None
    # One try, two seconds: a replica that does not answer (frozen) is passed over, not
    # retried with backoff while the backup waits.
    with Redis(
        host=host,
        port=port,
        password=password,
        retry=Retry(NoBackoff(), 0),
        socket_timeout=2,
        socket_connect_timeout=2,
    ) as client:
        return dict(client.info("replication"))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    return save(Path(argv[0]), StoreSettings())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

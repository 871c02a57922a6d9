"""``python -m services.backup FILE``: a snapshot of a running system's Redis (docs/operations.md).

``redis-cli --rdb`` asks Redis for a full resynchronisation, as a new replica would, and
writes the RDB it streams: the primary keeps serving, nothing is paused, and what is
saved is one consistent moment of every game, account, rating and read model. Restore it
into a fresh Redis with ``python -m services.launcher --restore FILE`` (locally), or by
placing it as ``dump.rdb`` in an empty data directory (docs/operations.md). Reads
RAFFE_REDIS_URL and RAFFE_REDIS_PASSWORD; a Redis Cluster is backed up primary by
primary (not by this command)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

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
    print(f"backing up {settings.redis_url.split('@')[-1]} to {out} ...", flush=True)
    done = subprocess.run(
        [find_binary("redis-cli"), "-u", settings.redis_url, "--rdb", str(out)],
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


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    return save(Path(argv[0]), StoreSettings())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

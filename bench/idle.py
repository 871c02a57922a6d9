"""What the stack costs when nobody needs it: CPU a second with nothing to do, and the
gateway's and Redis's CPU per announcement of a game nobody on the gateway watches.

    python -m bench.idle [OLD] [--rounds 2] [--seconds 20] [--announcements 20000]

Starts the system as `make run` does (the working tree, and OLD's code from a git
worktree when given, rounds interleaved), lets it settle, reads every process's CPU
from /proc over ``--seconds`` of idling, then publishes ``--announcements`` messages
shaped like a two-event command's on 64 game channels nobody watches. Prints medians,
and the working tree's ratios to OLD."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

from bench.common import Figure, against, cpu_seconds, print_table, stop_all
from bench.fullstack import start_system
from bench.revisions import ROOT, checkout
from services.core.eventstore.keys import Keys
from services.core.settings import StoreSettings

SETTLE_S = 8.0
EVENT = b"e\nCardsPlayed\n1\n0\n300\n" + b"x" * 300 + b"\n"
ANNOUNCEMENT = b"12\n2\ncid\n1800000000000\ngiraffe-raffe/1\n" + EVENT * 2


def measure(cwd: str | None, seconds: float, count: int) -> dict[str, float]:
    """Idle CPU ms a second (all, and by process) and us per unwatched announcement."""
    system, where, pids = start_system(tempfile.mkdtemp(), cwd=cwd)
    try:
        time.sleep(SETTLE_S)
        before = {n: cpu_seconds(p) for n, p in pids.items()}
        time.sleep(seconds)
        idle = {n: (cpu_seconds(p) - before[n]) * 1000 / seconds for n, p in pids.items()}
        out = {"idle": sum(idle.values()), **{f"idle {n}": v for n, v in idle.items()}}
        out.update(announcements(where["redis"], pids, count))
    finally:
        stop_all([system])
    print(f"    idle {out['idle']:.1f} ms/s, {_per(out)}", file=sys.stderr, flush=True)
    return out


def announcements(url: str, pids: dict[str, int], count: int) -> dict[str, float]:
    settings = StoreSettings()
    keys = Keys(settings.key_prefix, settings.partitions)
    channels = [keys.game(f"unwatched{i:02d}") for i in range(64)]
    client = redis.Redis.from_url(url)
    before = {n: cpu_seconds(pids[n]) for n in ("gateway", "redis")}
    pipe = client.pipeline(transaction=False)
    for i in range(count):
        pipe.publish(channels[i % len(channels)], ANNOUNCEMENT)
        if i % 100 == 99:  # a hundred at a time, a pause between: a busy site, not a flood
            pipe.execute()
            time.sleep(0.002)
    pipe.execute()
    time.sleep(1.0)  # the gateway's listener drains what it was sent
    client.close()
    return {
        f"per announcement {n}": (cpu_seconds(pids[n]) - t) * 1e6 / count for n, t in before.items()
    }


def _per(out: dict[str, float]) -> str:
    g, r = out["per announcement gateway"], out["per announcement redis"]
    return f"per unwatched announcement: gateway {g:.1f} us, redis {r:.1f} us"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old", nargs="?", default="")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--announcements", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = str(checkout(args.old, Path(tmp) / "old")) if args.old else None
        runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
        try:
            for r in range(args.rounds):
                for name, cwd in (("old", old), ("new", None)):
                    if name == "old" and old is None:
                        continue
                    print(f"  round {r + 1}/{args.rounds}: {name} ...", file=sys.stderr, flush=True)
                    runs[name].append(measure(cwd, args.seconds, args.announcements))
        finally:
            if old:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", old])
    print_table("what nobody needs costs (medians)", figures(runs))


def figures(runs: dict[str, list[dict[str, float]]]) -> list[Figure]:
    keys = ["idle", "per announcement gateway", "per announcement redis"]
    units = {"idle": "ms CPU/s"}
    out: list[Figure] = []
    for key in keys:
        unit = units.get(key, "us CPU")
        new = statistics.median(r[key] for r in runs["new"])
        if runs["old"]:
            base = statistics.median(r[key] for r in runs["old"])
            out.append(Figure(f"old: {key}", base, unit, ""))
            out.append(against(f"new: {key}", new, unit, "old", base))
        else:
            out.append(Figure(key, new, unit, ""))
    return out


if __name__ == "__main__":
    main()

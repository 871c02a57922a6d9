"""Horizontal scale shown, not assumed (#17 item 5): each engine replica runs under a CPU
quota (a cgroup v1 ``cpu.cfs_quota_us``, 0.1 core by default) to stand in for a node of
its own, so the engines are the bottleneck of a 2-core machine; moves/s (the light load
generator, 128 games) and bot-tournament games/s (48 players) at 1, 2 and 4 replicas,
with the Giraffe Raffe engine replicas' CPU and wake-ups (voluntary context switches)
per move, together.

    sudo python -m bench.scaleout [--short] [--core 0.1] [--per-replica] [--runs 3]   (root)

Every other service runs as many replicas (the launcher's --replicas) without a cap.
The ratios are against 1 replica of the same run. ``--per-replica``: the games played at
once and the tournament's players grow with the replicas (each replica as busy as the
one was), where by default the same load is spread over more replicas. ``--runs``: the
replica counts in turn this many times, each figure the median (a run's ratios swing by
a fifth with the machine's speed; each run's ratios are printed too). The tournament is
the same one at every replica count and run (``--unseeded``: a new random one each
time, whose longest tables decide its rounds)."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import statistics
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.common import Figure, against, launch, print_table, service_pids, write_json
from bench.realtime import players
from bench.tournament import play

CGROUP = Path("/sys/fs/cgroup/cpu")
PERIOD_US = 100_000
REPLICAS = (1, 2, 4)
ENGINES = ("giraffe-raffe engine", "giraffometer engine", "riff-raff engine")


@contextlib.contextmanager
def capped(pids: dict[str, int], core: float) -> Iterator[None]:
    """Each process in a cgroup of its own with ``core`` CPUs; removed afterwards."""
    made = []
    try:
        for name, pid in pids.items():
            group = CGROUP / f"raffe-bench-{re.sub(r'[^a-z0-9]+', '-', name)}-{pid}"
            group.mkdir(exist_ok=True)
            (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(int(PERIOD_US * core)))
            (group / "cgroup.procs").write_text(str(pid))
            made.append(group)
        yield
    finally:
        for group in made:
            for member in (group / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):
                    (CGROUP / "cgroup.procs").write_text(member)
            with contextlib.suppress(OSError):
                group.rmdir()


@dataclass(frozen=True)
class Measured:
    moves_per_s: float
    games_per_s: float
    cpu_ms: float  # the Giraffe Raffe engine replicas' CPU per move, all together
    switches: float  # their threads' wake-ups (voluntary context switches) per move
    trusted: float  # the share of commands whose game the replica's cache held current
    per_batch: float  # appends that shared one round trip to Redis, on average


def measure(
    replicas: int,
    core: float,
    moves: int,
    seconds: float,
    rounds: int,
    players_: int,
    games: int,
    seeded: bool = True,
) -> Measured:
    with tempfile.TemporaryDirectory() as state:
        proc, text = launch("--state-dir", state, "--replicas", str(replicas))
        try:
            url = re.search(r"gateway: (http://\S+)", text)
            assert url, text
            engines = {k: v for k, v in service_pids(text).items() if k.startswith(ENGINES)}
            moving = {k: v for k, v in engines.items() if k.startswith("giraffe-raffe")}
            metrics = [a for n, a in METRICS.findall(text) if n.startswith("giraffe-raffe")]
            with capped(engines, core):
                found, batched = cache_found(metrics), batches(metrics)
                rate = players(
                    url.group(1), "commands", games, moves, seconds, "giraffe-raffe", moving
                )
                found = {k: v - found.get(k, 0) for k, v in cache_found(metrics).items()}
                batched = {k: v - batched[k] for k, v in batches(metrics).items()}
                redis_url = re.search(r" at (redis://\S+)", text)
                where = redis_url.group(1) if redis_url else ""
                label = f"{replicas} replica(s)"
                elapsed = play(url.group(1), players_, rounds, label, where, text if seeded else "")
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=120)
    n = max(1, rate["moves"])
    cpu_ms = sum(rate["cpu_s"].values()) * 1000 / n
    switches = sum(rate["switches"].values()) / n
    trusted = found.get("trusted", 0) / max(1, sum(found.values()))
    per_batch = batched["calls"] / max(1.0, batched["batches"])
    games_per_s = players_ // 3 * rounds / elapsed
    return Measured(rate["rate"], games_per_s, cpu_ms, switches, trusted, per_batch)


METRICS = re.compile(r"^(.+?) at \S+ \(pid \d+\), metrics at (\S+)", re.M)
FOUND = re.compile(r'^raffe_engine_cache_total\{[^}]*found="(\w+)"[^}]*\} (\S+)', re.M)


def cache_found(addresses: list[str]) -> dict[str, float]:
    """How the replicas' caches held the games of the commands so far, summed."""
    out: dict[str, float] = {}
    for address in addresses:
        for found, n in FOUND.findall(httpx.get(f"http://{address}/metrics").text):
            out[found] = out.get(found, 0) + float(n)
    return out


BATCHED = re.compile(r"^raffe_store_(batches|batched_calls)_total (\S+)", re.M)


def batches(addresses: list[str]) -> dict[str, float]:
    """Batches of appends the replicas sent so far, and the appends in them, summed."""
    out = {"batches": 0.0, "calls": 0.0}
    for address in addresses:
        for kind, n in BATCHED.findall(httpx.get(f"http://{address}/metrics").text):
            out["batches" if kind == "batches" else "calls"] += float(n)
    return out


def median_of(runs: list[Measured]) -> Measured:
    """Each figure's median over the runs (a run's 1 replica is its own baseline, but
    the machine's speed drifts between runs, so the medians are what is compared)."""
    fields = Measured.__dataclass_fields__
    return Measured(**{f: statistics.median(getattr(r, f) for r in runs) for f in fields})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--core", type=float, default=0.1, help="CPU per engine replica")
    # 48: sixteen tables a round, four on each of four replicas. A round ends with its
    # slowest replica, and Riff Raff games differ in length: with two tables a replica
    # (24 players) the round waited on the unluckiest pair (2.4-3.0x at four replicas,
    # 3.5-3.8x with four tables a replica; docs/performance.md).
    parser.add_argument("--players", type=int, default=48, help="of the tournament (3 a table)")
    # 128: 32 games on each of four replicas. With 64, each replica's append batches
    # were half one replica's and its CPU per move 1.19x; with 128, 1.04x.
    parser.add_argument("--games", type=int, default=128, help="played at once for moves/s")
    parser.add_argument(
        "--per-replica",
        action="store_true",
        help="--games and --players per replica (the load grows with the replicas)",
    )
    parser.add_argument(
        "--runs", type=int, default=1, help="1, 2 and 4 replicas this often, in turn; medians"
    )
    parser.add_argument(
        "--unseeded",
        action="store_true",
        help="a new random tournament each time (default: the same one, bench.tournament)",
    )
    args = parser.parse_args(argv)
    if os.geteuid() != 0 or not CGROUP.is_dir():
        sys.exit("bench.scaleout writes cgroup v1 CPU quotas: run it as root")
    moves, seconds, rounds = (800, 8.0, 2) if args.short else (3000, 15.0, 4)
    runs: dict[int, list[Measured]] = {r: [] for r in REPLICAS}
    for run in range(args.runs):
        for replicas in REPLICAS:
            print(f"run {run + 1} of {args.runs}, {replicas} replica(s)", file=sys.stderr)
            times = replicas if args.per_replica else 1
            games, players_ = args.games * times, args.players * times
            got = measure(
                replicas,
                args.core,
                moves * times,
                seconds,
                rounds,
                players_,
                games,
                seeded=not args.unseeded,
            )
            runs[replicas].append(got)
        for replicas in REPLICAS[1:]:  # each run's own ratios, to show the spread
            one, got = runs[1][-1], runs[replicas][-1]
            print(
                f"run {run + 1}, {replicas} replicas against 1: moves/s "
                f"{got.moves_per_s / one.moves_per_s:.2f}x, tournament games/s "
                f"{got.games_per_s / one.games_per_s:.2f}x",
                file=sys.stderr,
            )
    figures: list[Figure] = []
    base = median_of(runs[1])
    for replicas in REPLICAS:
        got = median_of(runs[replicas])
        label = f"{replicas} engine replica(s) at {args.core} core"
        figures += [
            against(f"{label}: moves/s", got.moves_per_s, "moves/s", "1 replica", base.moves_per_s),
            against(
                f"{label}: tournament games/s",
                got.games_per_s,
                "games/s",
                "1 replica",
                base.games_per_s,
            ),
            against(f"{label}: engine CPU per move", got.cpu_ms, "ms", "1 replica", base.cpu_ms),
            against(
                f"{label}: engine wake-ups per move",
                got.switches,
                "switches",
                "1 replica",
                base.switches,
            ),
            Figure(f"{label}: commands on a cached game", got.trusted * 100, "%"),
            against(
                f"{label}: appends per Redis round trip",
                got.per_batch,
                "appends",
                "1 replica",
                base.per_batch,
            ),
        ]
    title = "scale-out, engines capped by cgroup quotas (2-core machine)"
    print_table(title + (f", medians of {args.runs} runs" if args.runs > 1 else ""), figures)
    print(f"written to {write_json('scaleout', figures)}")


if __name__ == "__main__":
    main()

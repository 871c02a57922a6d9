"""Full-stack benchmark: the system started as `make run` starts it, loaded by a separate
load-generator process, against three baselines started in the same run.

    python -m bench.fullstack [--short]

Measures moves/s and p50/p99 command latency at 1, 16 and 64 active games for each game;
a bare FastAPI endpoint, the minimal chain (FastAPI -> gRPC -> one Lua append) and raw
XADD round trips at the same concurrency; replay (events folded per second); a full
projection rebuild of 10,000 finished games; Redis bytes per event; engine and gateway
resident memory. Prints one table with ratios and writes bench/results/fullstack.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis as sync_redis

from bench.common import (
    Figure,
    launch,
    pids_on,
    print_table,
    rss_mib,
    service_pids,
    stop_all,
    with_cpu,
    write_json,
)
from bench.populate import populate, replay_rate
from services.core.eventstore import open_store
from services.core.local_redis import RedisServer, free_port
from services.core.settings import StoreSettings
from services.projection.rebuild import rebuild

GAMES = ["giraffe-raffe", "giraffometer", "riff-raff"]


def start(cmd: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )


def start_system(
    state: str, cwd: str | None = None
) -> tuple[subprocess.Popen[str], dict[str, str], dict[str, int]]:
    """The launcher's process, the addresses it printed, and every service's pid;
    ``cwd``: another checkout's code."""
    proc, text = launch("--state-dir", state, cwd=cwd)
    found = dict(re.findall(r"(gateway: http|redis \S+ \(embedded.*?\) at redis)://(\S+)", text))
    urls = {
        "gateway": "http://" + found["gateway: http"],
        "redis": "redis://" + next(v for k, v in found.items() if k.startswith("redis")),
    }
    engines = dict(re.findall(r"([a-z-]+) engine at (\S+)", text))
    pids = service_pids(text)
    redis_port = urls["redis"].rsplit(":", 1)[1].split("/")[0]
    pids["redis"] = pids_on(redis_port)[0]
    return proc, {**urls, **{f"engine:{k}": v for k, v in engines.items()}}, pids


def chain_redis(state: str) -> RedisServer:
    """The chain's own Redis, configured as `make run`'s (AOF, fsync always), under
    ``state``. On Raffe's, the chain's Redis CPU counted Raffe's idle workers' polling too
    (~8 ms/s: docs/performance.md), a few percent of its per request
    at one game."""
    directory = Path(state) / "chain-redis"
    directory.mkdir(parents=True, exist_ok=True)
    return RedisServer(appendonly=True, directory=str(directory)).start()


def start_baselines(redis_url: str) -> tuple[list[subprocess.Popen[str]], str]:
    grpc_port, http_port = free_port(), free_port()
    env = {**os.environ, "RAFFE_REDIS_URL": redis_url, "RAFFE_KEY_PREFIX": "baseline"}
    g = start(
        [sys.executable, "-m", "bench.baseline", "grpc"], {**env, "RAFFE_PORT": str(grpc_port)}
    )
    h = start(
        [sys.executable, "-m", "bench.baseline", "http"],
        {**env, "RAFFE_PORT": str(http_port), "BASELINE_GRPC": f"127.0.0.1:{grpc_port}"},
    )
    url = f"http://127.0.0.1:{http_port}"
    for _ in range(100):
        try:
            import httpx

            if httpx.get(f"{url}/ping", timeout=1).status_code == 200:
                break
        except Exception:
            time.sleep(0.1)
    return [g, h], url


def load(
    target: str,
    games: int,
    moves: int,
    seconds: float,
    url: str = "",
    redis: str = "",
    scripted: bool = False,
) -> dict[str, Any]:
    cmd = [
        sys.executable,
        "-m",
        "bench.loadgen",
        "--target",
        target,
        "--games",
        str(games),
        "--moves",
        str(moves),
        "--seconds",
        str(seconds),
        "--url",
        url,
        "--redis",
        redis,
        *(["--scripted"] if scripted else []),
    ]
    kind = " (scripted)" if scripted else ""
    print(f"  load: {target}{kind} x{games} ...", file=sys.stderr, flush=True)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 120)
    lines = out.stdout.strip().splitlines()
    if not lines:
        raise RuntimeError(f"the load generator failed:\n{out.stderr[-2000:]}")
    return dict(json.loads(lines[-1]))


def run(
    short: bool, levels: list[int], games: list[str], memory: bool, paired: int = 0
) -> list[Figure]:
    moves, seconds = (300, 8.0) if short else (3000, 20.0)
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as state:
        system, where, pids = start_system(state)
        own = chain_redis(state)
        baselines, base_url = start_baselines(own.url)
        pids |= {"baseline http": baselines[1].pid, "baseline grpc": baselines[0].pid}
        try:
            for n in levels:
                ping = load("ping", n, moves, seconds, url=base_url)
                chain = load("append", n, moves, seconds, url=base_url)
                raw = load("xadd", n, moves, seconds, redis=where["redis"])
                figures += [
                    Figure(f"bare FastAPI, {n} clients", ping["rate"], "req/s"),
                    Figure(
                        f"minimal chain, {n} clients",
                        chain["rate"],
                        "req/s",
                        "bare FastAPI",
                        chain["rate"] / ping["rate"],
                    ),
                    Figure(f"minimal chain p99, {n} clients", chain["p99_ms"], "ms"),
                    # The client shares the two cores: what it costs bounds both sides.
                    Figure(
                        f"load generator CPU per chain request, {n}", chain["client_cpu_ms"], "ms"
                    ),
                    Figure(f"raw XADD, {n} clients", raw["rate"], "ops/s"),
                ]
                for game in games:
                    got = load(game, n, moves, seconds, url=where["gateway"], scripted=True)
                    figures += game_figures(f"{game} moves, {n} games", got, chain)
                    got = load(game, n, moves, seconds, url=where["gateway"])
                    figures += game_figures(f"{game} interactive, {n} games", got, chain)
            if paired:
                figures += paired_runs(where, pids, base_url, paired, moves, seconds)
            if memory:
                figures += memory_and_rebuild(where, pids, short)
        finally:
            stop_all([system, *baselines])
            own.stop()
    return figures


def paired_runs(
    where: dict[str, str],
    pids: dict[str, int],
    base_url: str,
    repeats: int,
    moves: int,
    seconds: float,
) -> list[Figure]:
    """The target of the performance issue, measured against drift: the minimal chain and
    the Giraffe Raffe command path (16 games, scripted) alternate ``repeats`` times, and
    each pair gives one ratio; the median and the range are reported, and the CPU each
    process spent per request (median over the pairs), from /proc."""
    ratios, p99s = [], []
    cpu: dict[str, list[float]] = {}
    for _ in range(repeats):
        chain, chain_cpu = with_cpu(pids, lambda: load("append", 16, moves, seconds, url=base_url))
        got, got_cpu = with_cpu(
            pids,
            lambda: load("giraffe-raffe", 16, moves, seconds, url=where["gateway"], scripted=True),
        )
        ratios.append(got["rate"] / chain["rate"])
        p99s.append(got["p99_ms"] / max(chain["p99_ms"], 1e-9))
        for side, used, n in (("chain request", chain_cpu, chain), ("move", got_cpu, got)):
            for name, seconds_used in used.items():
                per = seconds_used * 1000 / max(1, n["moves"])
                if per >= 0.02:
                    cpu.setdefault(f"CPU per {side}: {name}", []).append(per)
            cpu.setdefault(f"CPU per {side}: load generator", []).append(n["client_cpu_ms"])
        print(
            f"  pair {len(ratios)}: chain {chain['rate']:.0f} req/s, giraffe-raffe "
            f"{got['rate']:.0f} moves/s, ratio {ratios[-1]:.2f}",
            file=sys.stderr,
            flush=True,
        )
    label = f"giraffe-raffe vs chain, 16 games, {repeats} pairs"
    return [
        Figure(f"{label}: median moves/s ratio", statistics.median(ratios), "x"),
        Figure(f"{label}: lowest ratio", min(ratios), "x"),
        Figure(f"{label}: highest ratio", max(ratios), "x"),
        Figure(f"{label}: median p99 ratio", statistics.median(p99s), "x"),
        *(Figure(name, statistics.median(v), "ms") for name, v in sorted(cpu.items())),
    ]


def game_figures(label: str, got: dict[str, Any], chain: dict[str, Any]) -> list[Figure]:
    """Throughput and command latency of one load, each against the minimal chain."""
    return [
        Figure(label, got["rate"], "moves/s", "minimal chain", got["rate"] / chain["rate"]),
        Figure(
            f"{label}: p50",
            got["p50_ms"],
            "ms",
            "chain p50",
            got["p50_ms"] / max(chain["p50_ms"], 1e-9),
        ),
        Figure(
            f"{label}: p99",
            got["p99_ms"],
            "ms",
            "chain p99",
            got["p99_ms"] / max(chain["p99_ms"], 1e-9),
        ),
        Figure(
            f"{label}: load generator CPU per request",
            got["client_cpu_ms"],
            "ms",
            "chain's",
            got["client_cpu_ms"] / max(chain["client_cpu_ms"], 1e-9),
        ),
    ]


def memory_and_rebuild(where: dict[str, str], pids: dict[str, int], short: bool) -> list[Figure]:
    games = 1000 if short else 10_000
    client = sync_redis.Redis.from_url(where["redis"])
    before = int(client.info("memory")["used_memory"])
    settings = StoreSettings(redis_url=where["redis"], key_prefix="rebuild")
    events = asyncio.run(populate(settings, games))
    after = int(client.info("memory")["used_memory"])
    started = time.perf_counter()
    asyncio.run(_rebuild(settings))
    rebuild_rate = events / (time.perf_counter() - started)
    return [
        Figure(f"projection rebuild, {games} games", rebuild_rate, "events/s"),
        Figure("replay fold, long game", replay_rate(), "events/s"),
        Figure("Redis bytes per event (game stream + log)", (after - before) / events, "bytes"),
        Figure(
            "engine resident memory (giraffe-raffe)", rss_mib(pids["giraffe-raffe engine"]), "MiB"
        ),
        Figure("gateway resident memory", rss_mib(pids["gateway"]), "MiB"),
    ]


async def _rebuild(settings: StoreSettings) -> None:
    store = await open_store(settings)
    await rebuild(store, progress=True)
    await store.redis.aclose()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--levels", default="", help="active games, e.g. 16 or 1,16,64")
    parser.add_argument("--games", default=",".join(GAMES), help="which games to load")
    parser.add_argument("--no-memory", action="store_true", help="skip rebuild and memory")
    parser.add_argument(
        "--paired", type=int, default=0, help="alternate chain and Giraffe Raffe N times (16 games)"
    )
    args = parser.parse_args(argv)
    levels = [int(n) for n in args.levels.split(",") if n] or (
        [1, 16] if args.short else [1, 16, 64]
    )
    figures = run(args.short, levels, args.games.split(","), not args.no_memory, args.paired)
    print_table("full stack (one machine, 2 cores)", figures)
    print(f"written to {write_json('fullstack', figures)}")


if __name__ == "__main__":
    main()

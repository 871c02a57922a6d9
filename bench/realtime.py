"""What players feel (#17), in one run with its baselines, driven by the light load
generator (bench.players on bench.rawhttp, not httpx):

    python -m bench.realtime [--short] [--levels 1,16,64] [--game giraffe-raffe] [--rounds 1]

At each level of active games: the minimal chain (HTTP -> gRPC -> one Lua append on a
Redis of its own, the baseline) and the Giraffe Raffe command path, commands only; the
move -> own fresh view latency (POST, then GET ?min_version=<its version>) against the
POST's; the opponent-push latency with every seat on a live stream against the
command's; the CPU each process spent per move with and without every seat watching; and
the whole machine's CPU per move (every process, the kernel and the load generator),
Raffe's against the chain's. Prints the table with ratios and the targets of #17, and
writes bench/results/realtime.json. At the end, Redis memory per game of the run's own
games, those not over (created or in play) and those over: every key of a game (its
stream, meta, command ids, seat tokens, read models), MEMORY USAGE summed; the partition
logs' copies of the events are shared and counted apart, per event."""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from typing import Any

import redis

from bench.common import (
    Figure,
    against,
    busy_ticks,
    cpu_seconds,
    cpu_ticks,
    print_table,
    rss_mib,
    steal_share,
    stop_all,
    wakeups,
    write_json,
)
from bench.fullstack import chain_redis, start_baselines, start_system
from bench.players import TIMED

MODES = ("commands", "own-view", "watch")
GAME_KEY = re.compile(rb":game:([A-Za-z0-9_-]{1,64})(?::(\w+))?$")  # ..:game:<id>[:part]
LOG_KEY = re.compile(rb":log(:attended)?$")


def players(
    url: str,
    mode: str,
    games: int,
    moves: int,
    seconds: float,
    game: str,
    pids: dict[str, int] | None = None,
) -> dict[str, Any]:
    """A bench.players run's JSON result; with ``pids``, under "cpu_s" the CPU seconds each
    of those processes spent during the timed part only (not the games' creation), and
    under "switches" their threads' voluntary context switches (wake-ups) meanwhile;
    under "steal" the share of the machine's CPU time its host took, and under
    "machine_s" the CPU seconds the whole machine spent meanwhile, kernel and load
    generator included (bench.common)."""
    cmd = [sys.executable, "-m", "bench.players", "--url", url, "--mode", mode]
    cmd += ["--games", str(games), "--moves", str(moves), "--seconds", str(seconds)]
    cmd += ["--game", game]
    print(f"  {mode} x{games} ...", file=sys.stderr, flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    errors = []
    for line in proc.stderr:  # the load generator says when its timed part starts
        if line.startswith(TIMED):
            break
        errors.append(line)
    before = {name: cpu_seconds(pid) for name, pid in (pids or {}).items()}
    woken = {name: wakeups(pid) for name, pid in (pids or {}).items()}
    ticks, busy = cpu_ticks(), busy_ticks()
    out, err = proc.communicate(timeout=seconds + 300)
    steal = steal_share(ticks, cpu_ticks())
    machine = (busy_ticks() - busy) / os.sysconf("SC_CLK_TCK")
    used = {name: cpu_seconds(pid) - before[name] for name, pid in (pids or {}).items()}
    woken = {name: wakeups(pid) - woken[name] for name, pid in (pids or {}).items()}
    lines = out.strip().splitlines()
    if not lines:
        raise RuntimeError(f"the load generator failed:\n{''.join(errors)[-2000:]}{err[-2000:]}")
    result = {"cpu_s": used, "switches": woken, "steal": steal, "machine_s": machine}
    return {**json.loads(lines[-1]), **result}


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One run's shape, each figure the median over ``runs``; CPU per move by process
    under "cpu_per_move"; frames lost summed."""
    med = statistics.median
    out: dict[str, Any] = {
        "rate": med(r["rate"] for r in runs),
        "errors": sum(r["errors"] for r in runs),
        "client_cpu_ms": med(r["client_cpu_ms"] for r in runs),
        "steal": max(r.get("steal", 0.0) for r in runs),
        "machine_ms": med(r.get("machine_s", 0.0) * 1000 / max(1, r["moves"]) for r in runs),
    }
    for latency in ("command", "own_view", "push"):
        out[latency] = {k: med(r[latency][k] for r in runs) for k in ("p50_ms", "p99_ms", "count")}
    per_run = [per_move(r.get("cpu_s", {}), r["moves"]) for r in runs]
    out["cpu_per_move"] = {k: med(c[k] for c in per_run) for k in per_run[0]}
    return out


def p(result: dict[str, Any], latency: str, percentile: int) -> float:
    """A latency percentile of a players run, in ms (e.g. p(run, "push", 99))."""
    return float(result[latency][f"p{percentile}_ms"])


def per_move(used: dict[str, float], moves: int) -> dict[str, float]:
    return {name: s * 1000 / max(1, moves) for name, s in used.items()}


def level(
    n: int,
    where: dict[str, str],
    pids: dict[str, int],
    base: str,
    moves: int,
    seconds: float,
    game: str,
    rounds: int = 1,
) -> list[Figure]:
    """The level's figures; with ``rounds`` > 1 the chain and each mode run that many
    times, interleaved, and each figure is the median of its runs (this machine's speed
    drifts by 10-30% within minutes, which one run of each cannot tell from a change)."""
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for _ in range(rounds):
        chain_pids = {k: v for k, v in pids.items() if k.startswith("baseline")}
        runs["chain"].append(players(base, "chain", n, moves, seconds, game, chain_pids))
        for mode in MODES:
            runs[mode].append(players(where["gateway"], mode, n, moves, seconds, game, pids))
    chain = median_run(runs["chain"])
    got = {mode: median_run(runs[mode]) for mode in MODES}
    cpu = {mode: got[mode]["cpu_per_move"] for mode in MODES}
    servers = [k for k in cpu["commands"] if not k.startswith("baseline")]
    plain = sum(cpu["commands"][k] for k in servers)
    # The chain's processes: its HTTP and gRPC servers and its own Redis (the #25 budget: a move
    # through Raffe at most 1.2x the chain's CPU per request).
    chain_cpu = sum(chain["cpu_per_move"].values())
    watched = sum(cpu["watch"][k] for k in servers)
    c, o, w = got["commands"], got["own-view"], got["watch"]
    ms, g, aw = "ms", f"{n} games", f"{n} games, all watching"
    return [
        Figure(f"{g}: minimal chain", chain["rate"], "req/s"),
        against(f"{g}: command path", c["rate"], "moves/s", "chain", chain["rate"]),
        against(f"{g}: command p99", p(c, "command", 99), ms, "chain p99", p(chain, "command", 99)),
        against(
            f"{g}: own fresh view p50",
            p(o, "own_view", 50),
            ms,
            "POST p50",
            p(o, "command", 50),
        ),
        against(
            f"{g}: own fresh view p99",
            p(o, "own_view", 99),
            ms,
            "POST p99",
            p(o, "command", 99),
        ),
        against(
            f"{aw}: opponent push p50",
            p(w, "push", 50),
            ms,
            "command p50",
            p(w, "command", 50),
        ),
        against(
            f"{aw}: opponent push p99",
            p(w, "push", 99),
            ms,
            "command p99",
            p(w, "command", 99),
        ),
        against(f"{aw}: moves", w["rate"], "moves/s", "not watching", c["rate"]),
        Figure(f"{g}: minimal chain CPU per request", chain_cpu, ms),
        against(f"{g}: server CPU per move", plain, ms, "chain's", chain_cpu),
        # Everything the machine ran, its kernel and the load generator included:
        # where the two cores are full (64 games), moves/s follow this ratio, not the one above
        # (docs/performance.md).
        against(f"{g}: machine CPU per move", c["machine_ms"], ms, "chain's", chain["machine_ms"]),
        against(f"{aw}: server CPU per move", watched, ms, "not watching", plain),
        against(f"{g}: load generator CPU per move", c["client_cpu_ms"], ms, "server's", plain),
        *by_process(g, cpu["commands"], chain["cpu_per_move"]),
        *(
            Figure(f"{aw}: CPU per move, {k}", v, "ms")
            for k, v in sorted(cpu["watch"].items())
            if k in servers and v >= 0.02
        ),
        Figure(f"{g}: push frames lost", w["errors"], "frames"),
        # A run the host took CPU from is slower for reasons of its own: seen here, such
        # a level is run again rather than read as a change's effect.
        Figure(f"{g}: host steal, worst run", 100 * max(r["steal"] for r in (chain, c, o, w)), "%"),
    ]


# Each of Raffe's processes against the chain's process that does its part.
COUNTERPART = {"gateway": "baseline http", "engine": "baseline grpc", "redis": "baseline redis"}


def by_process(g: str, raffe: dict[str, float], chain: dict[str, float]) -> list[Figure]:
    """CPU per move of each server process, commands only, against its chain counterpart
    (the projection has none): where the gap to the chain is."""
    out = []
    for name, value in sorted(raffe.items()):
        if name.startswith("baseline") or value < 0.02:
            continue
        twin = next((c for k, c in COUNTERPART.items() if name.endswith(k)), "")
        if twin in chain:
            out.append(against(f"{g}: CPU per move, {name}", value, "ms", twin, chain[twin]))
        else:
            out.append(Figure(f"{g}: CPU per move, {name}", value, "ms"))
    return out


def memory_per_game(redis_url: str) -> list[Figure]:
    """Redis memory of each game's own keys, averaged over the games not over (created,
    or in play: the load generator creates more than it plays) and over those that are
    over (a game is over once its stream ends with GameEnded)."""
    r = redis.Redis.from_url(redis_url)
    sizes: dict[bytes, int] = defaultdict(int)
    streams: dict[bytes, bytes] = {}
    log_bytes = 0
    for key in r.scan_iter(count=1000):
        size = int(r.memory_usage(key, samples=0) or 0)
        found = GAME_KEY.search(key)
        if found and b":rm:" not in key and found[2] is None:
            streams[found[1]] = key
        if found:
            sizes[found[1]] += size
        elif LOG_KEY.search(key):
            log_bytes += size
    over = {g for g, key in streams.items() if _ended(r, key)}
    events = sum(int(r.xlen(key)) for key in streams.values())

    def kib(games: set[bytes]) -> float:
        return sum(sizes[g] for g in games) / max(1, len(games)) / 1024

    playing = set(streams) - over  # created (some never moved in) or in play
    return [
        Figure(f"Redis per game not over ({len(playing)} games)", kib(playing), "KiB"),
        Figure(f"Redis per game over, not yet archived ({len(over)} games)", kib(over), "KiB"),
        Figure("Redis per event, partition logs' copy", log_bytes / max(1, events), "bytes"),
    ]


def _ended(r: redis.Redis, stream: bytes) -> bool:
    last: Any = r.xrevrange(stream, count=1)
    return bool(last) and last[0][1].get(b"t") == b"GameEnded"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--levels", default="1,16,64")
    parser.add_argument("--game", default="giraffe-raffe")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each, medians")
    args = parser.parse_args(argv)
    moves, seconds = (600, 6.0) if args.short else (3000, 15.0)
    levels = [int(x) for x in args.levels.split(",")] if not args.short else [1, 16]
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as state:
        system, where, pids = start_system(state)
        own = chain_redis(state)
        baselines, base = start_baselines(own.url)
        assert own.process is not None
        pids |= {
            "baseline http": baselines[1].pid,
            "baseline grpc": baselines[0].pid,
            "baseline redis": own.process.pid,
        }
        try:
            for n in levels:
                figures += level(n, where, pids, base, moves, seconds, args.game, args.rounds)
            figures += memory_per_game(where["redis"])
            figures += [
                Figure("gateway resident memory after the run", rss_mib(pids["gateway"]), "MiB"),
                Figure(
                    "engine resident memory after the run",
                    rss_mib(pids[f"{args.game} engine"]),
                    "MiB",
                ),
            ]
        finally:
            stop_all([system, *baselines])
            own.stop()
    print_table(f"what players feel ({args.game}; one machine, 2 cores)", figures)
    print(f"written to {write_json('realtime', figures)}")


if __name__ == "__main__":
    main()

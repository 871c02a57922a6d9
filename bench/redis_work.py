"""Redis's work a move (#58 item 4): each command's calls a move (inside scripts
included, from INFO commandstats) and Redis's CPU a move, on Raffe's stack and on the
minimal chain (bench.baseline: the same HTTP server, gRPC, one append script), each
driven by the same load generator in the same run.

    python -m bench.redis_work [--games 16] [--moves 3000] [--seconds 15]

What Raffe adds is printed command by command beside the chain's; docs/performance.md
says why each addition stays.
"""

from __future__ import annotations

import argparse
import tempfile
from typing import Any

import redis

from bench.common import Figure, against, cpu_seconds, print_table, stop_all, write_json
from bench.fullstack import chain_redis, start_baselines, start_system
from bench.realtime import players


def command_calls(url: str) -> dict[str, int]:
    stats: dict[str, Any] = redis.Redis.from_url(url).info("commandstats")
    return {name.removeprefix("cmdstat_"): int(s["calls"]) for name, s in stats.items()}


def measured(
    url: str, redis_url: str, redis_pid: int, mode: str, args: argparse.Namespace
) -> tuple[int, dict[str, float], float]:
    """Moves made, each command's calls a move, Redis CPU (ms) a move."""
    before, cpu = command_calls(redis_url), cpu_seconds(redis_pid)
    result = players(url, mode, args.games, args.moves, args.seconds, args.game)
    after, used = command_calls(redis_url), cpu_seconds(redis_pid) - cpu
    moves = int(result["moves"])
    calls = {k: (v - before.get(k, 0)) / moves for k, v in after.items() if v > before.get(k, 0)}
    return moves, calls, used * 1000 / moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--game", default="giraffe-raffe")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state:
        system, where, pids = start_system(state)
        own = chain_redis(state)
        baselines, base = start_baselines(own.url)
        assert own.process is not None
        try:
            _, raffe, raffe_cpu = measured(
                where["gateway"], where["redis"], pids["redis"], "commands", args
            )
            _, chain, chain_cpu = measured(base, own.url, own.process.pid, "chain", args)
        finally:
            stop_all([system, *baselines])
            own.stop()
    total, chain_total = sum(raffe.values()), sum(chain.values())
    figures = [
        against("Redis commands a move, all", total, "", "chain", chain_total),
        Figure("chain: Redis commands a move, all", chain_total, ""),
        against("Redis CPU a move", raffe_cpu, "ms", "chain", chain_cpu),
        Figure("chain: Redis CPU a move", chain_cpu, "ms"),
    ]
    for name in sorted(raffe, key=lambda n: -raffe[n]):
        if raffe[name] >= 0.01:
            label = f"{name} a move (chain {chain.get(name, 0):.2f})"
            figures.append(Figure(label, raffe[name], ""))
    print_table(f"Redis work a move ({args.game}, {args.games} games)", figures)
    print(f"written to {write_json('redis-work', figures)}")


if __name__ == "__main__":
    main()

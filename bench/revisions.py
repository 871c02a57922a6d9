"""What a change cost: the command path of two revisions, side by side, interleaved.

    python -m bench.revisions OLD [NEW] [--rounds 2] [--games 16] [--seconds 12]
                              [--mode commands|own-view|watch]

Each round starts the whole system from OLD's code (a git worktree), drives it with the
light load generator (bench.players; commands only, or with every seat watching), stops
it, then does the same with NEW (default: this working tree); each run's Redis starts
empty. Prints moves/s, command p99 and server CPU per move (the timed part only, every
Raffe process and Redis) as medians over the rounds, and NEW's ratios to OLD, with each
run on stderr, and the host's steal share of the worst run; run-to-run spread on a
2-core machine is ~10%, so alternate rounds rather than trust one pair. Rounds take the
two in turn, old first then new first (ABBA), so a drift over the run cancels out in an
even number of rounds."""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import Figure, against, launch, print_table, service_pids, stop_all
from bench.realtime import per_move, players

ROOT = Path(__file__).resolve().parent.parent
GAME = "giraffe-raffe"


def checkout(revision: str, where: Path) -> Path:
    """A worktree of ``revision`` with protobuf modules generated from its own protos
    (a revision's code may use fields another's protos no longer have)."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(where), revision],
        check=True,
    )
    protos = sorted(str(p.relative_to(where)) for p in (where / "proto").rglob("*.proto"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            "-Iproto",
            "--python_out=.",
            "--grpc_python_out=.",
            *protos,
        ],
        cwd=where,
        check=True,
    )
    for package in ("raffe", "raffe/v1"):
        (where / package / "__init__.py").touch()
    return where


def run(cwd: Path, games: int, seconds: float, mode: str) -> dict[str, float]:
    # Each run's Redis starts empty in a folder of its own: in the checkout's default
    # (.run) the working tree's Redis kept every earlier run's games, a worktree's not.
    with tempfile.TemporaryDirectory() as state:
        return _run(cwd, state, games, seconds, mode)


def _run(cwd: Path, state: str, games: int, seconds: float, mode: str) -> dict[str, float]:
    system, text = launch("--state-dir", state, cwd=str(cwd))
    try:
        gateway = re.search(r"gateway: (http://\S+)", text)
        assert gateway, text
        pids = service_pids(text)
        result = players(gateway.group(1), mode, games, 30_000, seconds, GAME, pids)
    finally:
        stop_all([system])
    cpu = per_move(result["cpu_s"], result["moves"])
    steal = 100 * result["steal"]
    line = f"    {result['rate']:.0f} moves/s, {_parts(cpu)}, host steal {steal:.0f}%"
    print(line, file=sys.stderr, flush=True)
    return {
        "rate": float(result["rate"]),
        "p99": float(result["command"]["p99_ms"]),
        "cpu": sum(cpu.values()),
        "steal": steal,
    }


def _parts(cpu: dict[str, float]) -> str:
    """CPU per move of the busy processes, e.g. 'gateway 0.52, ... ms'."""
    busy = sorted((ms, name) for name, ms in cpu.items() if ms >= 0.02)
    return ", ".join(f"{name} {ms:.2f}" for ms, name in reversed(busy)) + " ms per move"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("old")
    parser.add_argument("new", nargs="?", default="")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--mode", choices=["commands", "own-view", "watch"], default="commands")
    args = parser.parse_args(argv)
    runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as scratch:
        trees = {"old": checkout(args.old, Path(scratch) / "old")}
        trees["new"] = checkout(args.new, Path(scratch) / "new") if args.new else ROOT
        for i in range(args.rounds):
            # Old first, then new first: runs here drift (each a little slower than the
            # one before, seen over a session), and a fixed order charged it all to one side.
            for name in ("old", "new") if i % 2 == 0 else ("new", "old"):
                tree = trees[name]
                print(f"  round {i + 1}/{args.rounds}: {name} ...", file=sys.stderr, flush=True)
                runs[name].append(run(tree, args.games, args.seconds, args.mode))
    # The worktrees' folders are gone with the scratch folder; git forgets them here.
    subprocess.run(["git", "-C", str(ROOT), "worktree", "prune"], check=False)
    print_table(
        f"{args.old} against {args.new or 'the working tree'}, {args.games} games, {args.mode}",
        figures(runs),
    )


def figures(runs: dict[str, list[dict[str, Any]]]) -> list[Figure]:
    out: list[Figure] = []
    for key, name, unit in (
        ("rate", "moves", "moves/s"),
        ("p99", "command p99", "ms"),
        ("cpu", "server CPU per move", "ms"),
    ):
        old, new = (statistics.median(r[key] for r in runs[side]) for side in ("old", "new"))
        out += [Figure(f"old: {name}", old, unit), against(f"new: {name}", new, unit, "old", old)]
    # The host's share of the machine in the worst run: beyond a few percent, the rounds'
    # spread is the host's and the ratios above say little (docs/performance.md).
    worst = max(r.get("steal", 0.0) for side in runs.values() for r in side)
    return [*out, Figure("host steal, worst run", worst, "%")]


if __name__ == "__main__":
    main()

"""Do gateways add what they cost? (#58 item 2) One gateway, then two and four, each
under the same CPU quota (a node of its own, as in bench.scaleout), each carrying the
one gateway's tables times its target (1.8x at two, 3.4x at four; 0.85x a gateway at
any other count): the push p99 and the gateways' CPU a move beside the one gateway's,
from the same run.

    sudo python -m bench.gateway_scale [--tables 200] [--core 0.1] [--hold 30]
                                       [--gateways 2,4] [--spread]

Each row is a bench.crowd run (people at human pace, every seat and a spectator on a
live stream). By default a table's requests go where the production ingress sends them:
hashed by their path, so all of a table's streams are on one gateway (decision 59);
``--spread`` also runs each count with a table's seats spread over the gateways, as a
round-robin balancer would place them, where every gateway holding a viewer folds each
move. A count meets its target when its p99 is no worse than the one gateway's (the
quota's 100 ms period makes p99 near a full quota jumpy: read it with the CPU a move).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any

from bench.common import Figure, against, print_table, write_json

TARGETS = {2: 1.8, 4: 3.4}


def crowd(gateways: int, tables: int, core: float, hold: float, affinity: bool) -> dict[str, Any]:
    """One bench.crowd run at one level; its figures (its progress on stderr)."""
    argv = [sys.executable, "-m", "bench.crowd", "--gateways", str(gateways)]
    argv += ["--levels", str(tables), "--hold", str(hold), "--gateway-core", str(core)]
    argv += ["--affinity"] if affinity else []
    print(
        f"-- {gateways} gateway(s), {tables} tables{', hashed' if affinity else ''}",
        file=sys.stderr,
        flush=True,
    )
    out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, text=True).stdout
    level: dict[str, Any] = json.loads(out.strip().splitlines()[-1])[0]
    return level


def gateway_cpu(level: dict[str, Any]) -> float:
    """The gateways' CPU, all together, in percent of a core."""
    return float(
        sum(v["cpu_pct"] for k, v in level["processes"].items() if k.startswith("gateway"))
    )


def figures(label: str, level: dict[str, Any], one: dict[str, Any]) -> list[Figure]:
    per_move = 10 * gateway_cpu(level) / max(level["moves_per_s"], 1e-9)  # ms a move
    one_per_move = 10 * gateway_cpu(one) / max(one["moves_per_s"], 1e-9)
    return [
        against(f"{label}: streams", level["streams"], "", "one gateway", one["streams"]),
        against(
            f"{label}: push p99", level["push_p99_ms"], "ms", "one gateway", one["push_p99_ms"]
        ),
        against(
            f"{label}: push p50", level["push_p50_ms"], "ms", "one gateway", one["push_p50_ms"]
        ),
        against(f"{label}: gateway CPU a move", per_move, "ms", "one gateway", one_per_move),
        Figure(f"{label}: errors", sum(level["errors"].values()), ""),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=200, help="the one gateway's tables")
    parser.add_argument("--core", type=float, default=0.1, help="CPU quota per gateway")
    parser.add_argument("--hold", type=float, default=30.0)
    parser.add_argument("--gateways", default="2,4")
    parser.add_argument("--spread", action="store_true", help="also seats spread over them")
    args = parser.parse_args(argv)
    one = crowd(1, args.tables, args.core, args.hold, affinity=False)
    out = [
        Figure("one gateway: streams", one["streams"], ""),
        Figure("one gateway: push p99", one["push_p99_ms"], "ms"),
        Figure("one gateway: CPU", gateway_cpu(one), "% of a core"),
    ]
    for n in (int(x) for x in args.gateways.split(",")):
        tables = round(args.tables * TARGETS.get(n, n * 0.85))
        for affinity in (True, False) if args.spread else (True,):
            level = crowd(n, tables, args.core, args.hold, affinity)
            out += figures(f"{n} gateways, {'hashed' if affinity else 'spread'}", level, one)
    print_table(f"gateways under {args.core} core each, against one", out)
    write_json("gateway-scale", out)


if __name__ == "__main__":
    main()

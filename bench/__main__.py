"""``make bench``: every benchmark, each printing ratios against its own baselines.

make bench                     full run
make bench BENCH_ARGS=--short  a quick pass
"""

from __future__ import annotations

import argparse
import importlib

BENCHMARKS = [
    "bench.eventstore",
    "bench.giraffe_raffe",
    "bench.engine_work",
    "bench.riff_raff",
    "bench.fullstack",
    "bench.realtime",
    "bench.tournament",
    "bench.retention",
    "bench.bots",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--only", choices=[b.split(".")[-1] for b in BENCHMARKS])
    args = parser.parse_args()
    for name in BENCHMARKS:
        if args.only and not name.endswith(args.only):
            continue
        module = importlib.import_module(name)
        module.main(["--short"] if args.short else [])


if __name__ == "__main__":
    main()

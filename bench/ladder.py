"""The duplicate bot ladder (docs/bots.md) on a local system: every level of a game (or
``--levels``) plays the same ``--deals`` deals in every seat rotation, as a `ladder`
tournament run by the tournament service; its tables are ordinary games.

    python -m bench.ladder --game giraffe-raffe --deals 2000 [--levels intermediate,search]
                           [--workers 2] [--replicas 1]

Shows the tournament's progress, then per level openskill mu and sigma, mean place and
win rate with 95% intervals over deals, and each level's paired gap to the next one
down (its baseline: the same deals, the same seats). Writes
bench/results/ladder-<game>.json.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import tempfile
import time
from itertools import pairwise
from typing import Any

import httpx

from bench.common import Figure, launch, print_table, write_json
from services import cli
from services.tournament.ladder import levels, paired


def run(game: str, deals: int, chosen: str, replicas: int) -> str:
    """Starts the system, runs the ladder through `raffe ladder run`; the tournament id."""
    with tempfile.TemporaryDirectory() as state:
        proc, text = launch("--state-dir", state, "--replicas", str(replicas))
        try:
            url = re.search(r"gateway: (http://\S+)", text)
            assert url, text
            started = time.monotonic()
            with httpx.Client(base_url=url.group(1), timeout=60) as http:
                levels_ = chosen.split(",") if chosen else []
                code, tid = cli.run_ladder(http, game, deals, levels_, "", 7 * 24 * 3600)
                minutes = (time.monotonic() - started) / 60
                print(f"ladder {tid} ended (code {code}) after {minutes:.1f} min")
                report(game, http.get(f"/v1/tournaments/{tid}").json())
                return tid
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(60)


def report(game: str, tournament: dict[str, Any]) -> None:
    """The published table as figures: each level's mean place against the level below
    it on the same deals (the ratio: the lower level's mean place over this one's)."""
    cli.show_ladder(tournament)  # mu, sigma and every interval, as `raffe ladder show`
    results = levels(tournament)
    figures = []
    for r in results:
        figures.append(Figure(f"{r.level}: mu (sigma {r.sigma:.2f})", r.mu, ""))
        figures.append(Figure(f"{r.level}: mean place (± {r.place.half:.3f})", r.place.mean, ""))
        wins = f"{r.level}: wins (± {100 * r.wins.half:.1f})"
        figures.append(Figure(wins, 100 * r.wins.mean, "%"))
    for upper, lower in pairwise(results):
        gap = paired(tournament, upper.level, lower.level)
        figures.append(
            Figure(
                f"{upper.level} ahead of {lower.level} (± {gap.half:.3f})",
                gap.mean,
                "places/deal",
                lower.level,
                lower.place.mean / upper.place.mean,
            )
        )
    print_table(f"{game} bot ladder, {tournament['options']['rounds']} deals", figures)
    print(f"written to {write_json(f'ladder-{game}', figures)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="giraffe-raffe")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--levels", default="", help="comma-separated (default: all)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--short", action="store_true", help="20 deals")
    args = parser.parse_args(argv)
    os.environ["RAFFE_BOT_WORKERS"] = str(args.workers)  # the launched bot runner's
    run(args.game, 20 if args.short else args.deals, args.levels, args.replicas)


if __name__ == "__main__":
    main()

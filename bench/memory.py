"""Memory of the whole stack (#25 item 5): empty, and per finished game.

    python -m bench.memory [--games 5000] [--cwd OTHER_CHECKOUT]

Starts the system as `make run` does, lets it settle, and takes every service's resident
memory and Redis's dataset (``used_memory``): the empty stack. Then the light load
generator (scripted commands through the gateway, 16 games at a time, a new one as
each ends) plays ``--games`` whole games, and the same figures are taken
again: the growth per finished game, by process, and the gateway's growth in all.
Progress goes to stderr. ``--revision REV`` measures another revision's code (a git
worktree, as bench.revisions makes)."""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import redis

from bench.common import Figure, against, print_table, rss_mib, stop_all, write_json
from bench.fullstack import start_system
from bench.loadgen import SEATS, script
from bench.revisions import checkout

GAME = "giraffe-raffe"


def resident(pids: dict[str, int], redis_url: str) -> dict[str, float]:
    """MiB by process; Redis as its dataset (used_memory), not its resident pages."""
    out = {name: rss_mib(pid) for name, pid in pids.items() if name != "redis"}
    out["redis dataset"] = int(redis.Redis.from_url(redis_url).info("memory")["used_memory"])
    out["redis dataset"] /= 1024 * 1024
    return out


async def play(url: str, games: int, workers: int = 16) -> int:
    """Play ``games`` whole games through the gateway, ``workers`` at a time, each a
    seeded practice game whose moves were computed in memory (bench.loadgen.script);
    returns the games played to their end."""
    ended = 0

    async def worker(w: int, http: httpx.AsyncClient) -> None:
        nonlocal ended
        while ended < games:
            seed = f"memory-{w}-{uuid.uuid4().hex[:8]}"
            body = {"game": GAME, "seats": [{"kind": "human"}] * SEATS[GAME]}
            created = (
                await http.post("/v1/games", json={**body, "seed": seed, "practice": True})
            ).json()
            tokens = created["tokens"]
            for seat, _, command in script(GAME, seed):
                move = {"command": command, "command_id": uuid.uuid4().hex}
                auth = {"Authorization": f"Bearer {tokens[str(seat)]}"}
                answer = await http.post(
                    f"/v1/games/{created['game_id']}/commands", json=move, headers=auth
                )
                answer.raise_for_status()
            ended += 1
            if ended % 250 == 0:
                print(f"  {ended}/{games} games played", file=sys.stderr, flush=True)

    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        await asyncio.gather(*(worker(w, http) for w in range(workers)))
    return ended


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--settle", type=float, default=5.0, help="seconds before each look")
    parser.add_argument("--revision", default="", help="measure this git revision's code")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as state:
        cwd = str(checkout(args.revision, Path(state) / "tree")) if args.revision else None
        system, where, pids = start_system(state, cwd)
        try:
            time.sleep(args.settle)
            empty = resident(pids, where["redis"])
            print(f"  empty stack: {sum(empty.values()):.0f} MiB", file=sys.stderr, flush=True)
            ended = asyncio.run(play(where["gateway"], args.games))
            time.sleep(args.settle)  # the projection catches up, archives nothing yet
            after = resident(pids, where["redis"])
        finally:
            stop_all([system])
    figures = [Figure("empty stack, every process and Redis's dataset", sum(empty.values()), "MiB")]
    figures += [Figure(f"empty: {name}", mib, "MiB") for name, mib in sorted(empty.items())]
    grown = sum(after.values()) - sum(empty.values())
    figures.append(Figure("games ended", ended, "games"))
    figures.append(Figure("per finished game, every process", grown * 1024 / ended, "KiB"))
    for name in sorted(after):
        per_game = (after[name] - empty[name]) * 1024 / max(1, ended)
        figures.append(Figure(f"per finished game: {name}", per_game, "KiB"))
    figures.append(
        against(
            "gateway grew",
            after["gateway"] - empty["gateway"],
            "MiB",
            "its empty size",
            empty["gateway"],
        )
    )
    if args.revision:
        subprocess.run(["git", "worktree", "prune"], check=False)  # its folder is gone
    print_table(f"memory of the stack ({ended} games ended)", figures)
    print(f"written to {write_json('memory', figures)}")


if __name__ == "__main__":
    main()

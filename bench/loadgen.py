"""The load generator of the full-stack benchmark: a process of its own, bounded in moves
and in time, sending traffic only to 127.0.0.1. Prints one JSON line of results.

    python -m bench.loadgen --url http://127.0.0.1:8000 --target giraffe-raffe --games 16
    python -m bench.loadgen --url http://127.0.0.1:8000 --target giraffe-raffe --scripted
    python -m bench.loadgen --url http://127.0.0.1:9000 --target ping --games 16
    python -m bench.loadgen --url http://127.0.0.1:9000 --target append --games 16
    python -m bench.loadgen --redis redis://127.0.0.1:6379/0 --target xadd --games 16
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import uuid
from typing import Any

import httpx
from redis.asyncio import Redis

from services.games import GAMES
from services.kernel.playthrough import bot_moves
from services.kernel.rng import SeededRng

SEATS = {"giraffe-raffe": 3, "giraffometer": 3, "riff-raff": 2}
BOT = {"giraffe-raffe": "random", "giraffometer": "random", "riff-raff": "random"}


class Run:
    def __init__(self, moves: int, seconds: float) -> None:
        self.moves, self.deadline = moves, time.perf_counter() + seconds
        self.latencies: list[float] = []
        self.errors = 0

    def more(self) -> bool:
        return len(self.latencies) < self.moves and time.perf_counter() < self.deadline

    async def timed(self, call: Any) -> Any:
        start = time.perf_counter()
        result = await call
        self.latencies.append(time.perf_counter() - start)
        return result


async def play(http: httpx.AsyncClient, game: str, run: Run, worker: int) -> None:
    """Keep one game going (a new one when it ends); errors are counted, not fatal."""
    while run.more():
        try:
            await play_one(http, game, run, worker)
        except (httpx.HTTPError, KeyError, IndexError, ValueError):
            run.errors += 1
            await asyncio.sleep(0.1)


async def play_one(http: httpx.AsyncClient, game: str, run: Run, worker: int) -> None:
    if run.more():
        seats = [{"kind": "human"}] * SEATS[game]
        created = (await http.post("/v1/games", json={"game": game, "seats": seats})).json()
        game_id, tokens = created["game_id"], created["tokens"]
        rng, bot = SeededRng(game_id, worker), GAMES[game].bot(BOT[game])
        seen = created["version"]  # as the docs ask: read at least what you have seen
        while run.more():
            url = f"/v1/games/{game_id}?min_version={seen}"
            view = (await http.get(url, headers=_auth(tokens["0"]))).json()
            if "view" not in view:  # an error (e.g. rate limited): try again
                await asyncio.sleep(0.05)
                continue
            status = view["view"]["status"]
            if status["over"]:
                break
            token = tokens[str(status["to_act"][0])]
            legal = (await http.get(f"/v1/games/{game_id}/commands", headers=_auth(token))).json()
            if not legal["to_act"]:
                continue
            url = f"/v1/games/{game_id}?min_version={legal['version']}"  # the same version
            seat_view = (await http.get(url, headers=_auth(token))).json()["view"]
            body = {"command": bot(seat_view, legal, rng), "command_id": uuid.uuid4().hex}
            headers = {**_auth(token), "If-Match": f'"{legal["version"]}"'}
            url = f"/v1/games/{game_id}/commands"
            done = await run.timed(http.post(url, json=body, headers=headers))
            seen = max(seen, done.json().get("version", seen))


Move = tuple[int, int, dict[str, Any]]  # seat, version before, command


def script(game: str, seed: str) -> list[Move]:
    """A whole game of bots played in memory from a seed the client chose: the engine,
    given the same seed, deals the same cards and rolls the same dice, so these
    commands are exactly the ones the bots would send after reading their views."""
    return bot_moves(GAMES[game], SEATS[game], seed, GAMES[game].bot(BOT[game]))


async def scripted(http: httpx.AsyncClient, game: str, worker: int, moves: int) -> list[Any]:
    """Games created (untimed) with scripts long enough for ``moves`` commands."""
    games: list[Any] = []
    while sum(len(g[2]) for g in games) < moves:
        seed = f"bench-{worker}-{len(games)}-{uuid.uuid4().hex[:8]}"
        seats = [{"kind": "human"}] * SEATS[game]
        body = {"game": game, "seats": seats, "seed": seed, "practice": True}
        created = (await http.post("/v1/games", json=body)).json()
        games.append((created["game_id"], created["tokens"], script(game, seed)))
    return games


async def replay_script(http: httpx.AsyncClient, games: list[Any], run: Run) -> None:
    """One command POST per move and nothing else: the command path alone."""
    for game_id, tokens, moves in games:
        for seat, version, command in moves:
            if not run.more():
                return
            body = {"command": command, "command_id": uuid.uuid4().hex}
            headers = {**_auth(tokens[str(seat)]), "If-Match": f'"{version}"'}
            url = f"/v1/games/{game_id}/commands"
            try:
                response = await run.timed(http.post(url, json=body, headers=headers))
            except httpx.HTTPError:  # the same command id again is safe: resend it
                run.errors += 1
                response = await run.timed(http.post(url, json=body, headers=headers))
            if response.status_code != 200:
                run.errors += 1
                break


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def ping(http: httpx.AsyncClient, path: str, method: str, run: Run) -> None:
    while run.more():
        try:
            await run.timed(http.request(method, path))
        except httpx.HTTPError:  # e.g. a keep-alive connection the server just closed
            run.errors += 1


async def xadd(redis: Redis, run: Run, worker: int) -> None:
    while run.more():
        await run.timed(redis.xadd(f"bench:xadd:{worker}", {"t": "CardsPlayed", "p": b"{}"}))


async def main(args: argparse.Namespace) -> dict[str, Any]:
    run = Run(args.moves, args.seconds)
    started, cpu_started = time.perf_counter(), time.process_time()
    if args.target == "xadd":
        redis = Redis.from_url(args.redis, max_connections=args.games + 4)
        await asyncio.gather(*(xadd(redis, run, w) for w in range(args.games)))
        await redis.aclose()
    else:
        limits = httpx.Limits(max_connections=args.games + 4)
        async with httpx.AsyncClient(base_url=args.url, timeout=30, limits=limits) as http:
            if args.target in SEATS and args.scripted:
                per_game = args.moves // args.games + 1
                prepared = [
                    await scripted(http, args.target, w, per_game) for w in range(args.games)
                ]
                run = Run(args.moves, args.seconds)
                started, cpu_started = time.perf_counter(), time.process_time()
                work = [replay_script(http, games, run) for games in prepared]
            elif args.target in SEATS:
                work = [play(http, args.target, run, w) for w in range(args.games)]
            elif args.target == "ping":
                work = [ping(http, "/ping", "GET", run) for _ in range(args.games)]
            else:
                work = [
                    ping(http, f"/append/g{w}-{uuid.uuid4().hex[:6]}", "POST", run)
                    for w in range(args.games)
                ]
            await asyncio.gather(*work)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    lat = sorted(run.latencies)
    return {
        "target": args.target,
        "games": args.games,
        "moves": len(lat),
        "rate": len(lat) / elapsed,
        "p50_ms": statistics.median(lat) * 1000 if lat else 0.0,
        "p99_ms": lat[int(len(lat) * 0.99) - 1] * 1000 if lat else 0.0,
        "errors": run.errors,
        # the client's own CPU per request in the timed part: it shares the machine
        "client_cpu_ms": cpu * 1000 / len(lat) if lat else 0.0,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--redis", default="")
    parser.add_argument("--target", required=True)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--scripted", action="store_true", help="seeded games, commands only (no reads)"
    )
    print(json.dumps(asyncio.run(main(parser.parse_args()))))

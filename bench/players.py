"""What players feel, driven by a light load generator (bench.rawhttp): a process of its
own, bounded in moves and time, loopback only. Prints one JSON line.

    python -m bench.players --url http://127.0.0.1:8000 --game giraffe-raffe --games 16 --mode watch
    python -m bench.players --url http://127.0.0.1:9000 --mode chain --games 16

Modes (games are seeded practice games whose moves are computed in memory beforehand,
so the client does no game logic while timed):
- ``commands``: each game's moves as command POSTs, one after the other: the command path.
- ``own-view``: after each POST, GET the view at the new version (``min_version``): the
  move -> own fresh view latency, measured from the POST's start.
- ``watch``: every seat of every game holds a live stream (SSE); for each move, the time
  from the POST's start until each other seat's stream delivers that version: the
  opponent-push latency.
- ``chain``: the minimal chain's POST /append (the baseline's own route).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import time
import uuid
from typing import Any
from urllib.parse import urlparse

import httpx
import orjson

from bench.loadgen import SEATS, script
from bench.rawhttp import Conn, SseConn, build
from services.core.loop import run as run_loop

TIMED = "timed part starts"  # printed on stderr once the games are created
ARRIVED = asyncio.Event()  # set whenever a frame arrives on any stream


class Results:
    def __init__(self, moves: int, seconds: float) -> None:
        self.moves, self.deadline = moves, time.perf_counter() + seconds
        self.command: list[float] = []
        self.own_view: list[float] = []
        self.push: list[float] = []
        self.errors = 0

    def more(self) -> bool:
        return len(self.command) < self.moves and time.perf_counter() < self.deadline


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50_ms": 0.0, "p99_ms": 0.0, "count": 0}
    ordered = sorted(values)
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)]
    return {
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": p99 * 1000,
        "count": len(ordered),
    }


async def prepare(url: str, game: str, games: int, per_game: int) -> list[dict[str, Any]]:
    """Seeded practice games (untimed), each with enough scripted moves."""
    out = []
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        for g in range(games):
            scripts: list[dict[str, Any]] = []
            while sum(len(s["moves"]) for s in scripts) < per_game:
                seed = f"players-{g}-{len(scripts)}-{uuid.uuid4().hex[:8]}"
                body = {
                    "game": game,
                    "seats": [{"kind": "human"}] * SEATS[game],
                    "seed": seed,
                    "practice": True,
                }
                created = (await http.post("/v1/games", json=body)).json()
                moves = script(game, seed)
                requests = [command_request(created, *move) for move in moves]
                scripts.append({**created, "moves": moves, "requests": requests})
            out.append({"scripts": scripts})
    return out


def command_request(created: dict[str, Any], seat: int, version: int, command: Any) -> bytes:
    """A move's POST, built before the timed part (as the chain's client sends bytes
    built once): the load generator's CPU a move is then its socket's, not JSON's."""
    body = json.dumps({"command": command, "command_id": uuid.uuid4().hex}).encode()
    token = created["tokens"][str(seat)]
    headers = {"Authorization": f"Bearer {token}", "If-Match": f'"{version}"'}
    return build("POST", f"/v1/games/{created['game_id']}/commands", headers, body)


async def play_game(
    host: str, port: int, prepared: dict[str, Any], mode: str, results: Results
) -> None:
    conn = await Conn.open(host, port)
    for game in prepared["scripts"]:
        arrivals: dict[int, dict[int, float]] = {}  # version -> seat -> arrival
        streams: list[SseConn] = []
        if mode == "watch":
            streams = await watch(host, port, game, arrivals)
        for (seat, _, _), raw in zip(game["moves"], game["requests"], strict=True):
            if not results.more():
                break
            token = game["tokens"][str(seat)]
            started = time.perf_counter()
            status, answer = await conn.request(raw)
            results.command.append(time.perf_counter() - started)
            if status != 200:
                results.errors += 1
                break
            if mode == "commands":  # the chain's client reads no answer either
                continue
            new = orjson.loads(answer)["version"]
            if mode == "own-view":
                path = f"/v1/games/{game['game_id']}?min_version={new}"
                await conn.request(build("GET", path, {"Authorization": f"Bearer {token}"}))
                results.own_view.append(time.perf_counter() - started)
            elif mode == "watch":
                others = [int(x) for x in game["tokens"] if int(x) != seat]
                await pushed(arrivals, new, others, started, results)
        for s in streams:
            s.close()
    conn.close()


async def watch(
    host: str, port: int, game: dict[str, Any], arrivals: dict[int, dict[int, float]]
) -> list[SseConn]:
    """A live stream for every seat; each frame's arrival time, by version and seat."""
    streams = []
    for seat, token in game["tokens"].items():

        def arrived(version: int, at: float, seat: int = int(seat)) -> None:
            arrivals.setdefault(version, {})[seat] = at
            ARRIVED.set()

        path = f"/v1/games/{game['game_id']}/events/stream?after={game['version']}"
        headers = {"Authorization": f"Bearer {token}"}
        streams.append(await SseConn.open(host, port, path, headers, arrived))
    return streams


async def pushed(
    arrivals: dict[int, dict[int, float]],
    version: int,
    others: list[int],
    started: float,
    results: Results,
) -> None:
    """Wait (bounded) until every other seat's stream has the version; note each delay
    from the move's start (the opponent-push latency)."""
    deadline = time.perf_counter() + 5
    while time.perf_counter() < deadline:
        seen = arrivals.get(version, {})
        if all(seat in seen for seat in others):
            break
        ARRIVED.clear()  # no await since the check: a frame arriving now sets it again
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ARRIVED.wait(), max(0.0, deadline - time.perf_counter()))
    seen = arrivals.pop(version, {})
    for old in [v for v in arrivals if v < version]:
        del arrivals[old]
    results.push += [seen[seat] - started for seat in others if seat in seen]

    missing = [seat for seat in others if seat not in seen]
    results.errors += len(missing)
    if missing:
        print(f"frame {version} missing for seats {missing}", file=sys.stderr, flush=True)


async def chain(host: str, port: int, results: Results, worker: int) -> None:
    conn = await Conn.open(host, port)
    raw = build("POST", f"/append/p{worker}-{uuid.uuid4().hex[:6]}", {})
    while results.more():
        started = time.perf_counter()
        await conn.request(raw)
        results.command.append(time.perf_counter() - started)
    conn.close()


async def main(args: argparse.Namespace) -> dict[str, Any]:
    url = urlparse(args.url)
    host, port = url.hostname or "127.0.0.1", url.port or 80
    prepared: list[dict[str, Any]] = []
    if args.mode != "chain":
        prepared = await prepare(args.url, args.game, args.games, args.moves // args.games + 1)
    results = Results(args.moves, args.seconds)
    print(TIMED, file=sys.stderr, flush=True)  # CPU meters and profilers start here
    started, cpu = time.perf_counter(), time.process_time()
    if args.mode == "chain":
        work = [chain(host, port, results, w) for w in range(args.games)]
    else:
        work = [play_game(host, port, p, args.mode, results) for p in prepared]
    await asyncio.gather(*work)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    moves = len(results.command)
    return {
        "mode": args.mode,
        "game": args.game,
        "games": args.games,
        "moves": moves,
        "rate": moves / elapsed,
        "errors": results.errors,
        "command": percentiles(results.command),
        "own_view": percentiles(results.own_view),
        "push": percentiles(results.push),
        "client_cpu_ms": cpu * 1000 / max(1, moves),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--game", default="giraffe-raffe")
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--mode", choices=["commands", "own-view", "watch", "chain"])
    print(json.dumps(run_loop(main(parser.parse_args()))))

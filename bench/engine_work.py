"""What an engine's own work costs a move, against the minimal chain's engine, both in
this process on one real Redis (AOF, fsync always, as `make run`'s), without gRPC:

    python -m bench.engine_work [--short] [--moves 3000] [--rounds 4]

- Raffe: ``EngineService._execute``, the body of an engine's gRPC handler, over scripted
  Giraffe Raffe practice games (the moves bench.players sends): the command parsed and
  decided, the events appended, the caller's view, legal commands and redacted events
  made into the answer.
- The chain: ``bench.baseline.MinimalEngine.Execute``, one event appended.

Prints CPU per move (this process: the engine's side of the store included, Redis's own
apart) and wall time per move, medians over rounds taken in turn, and Raffe's against
the chain's. At one game a move is one request at a time, so the difference is on every
move's path: it is the product's own work that #25's budget (CPU per move <= 1.2x the
whole chain's) has to hold (docs/performance.md)."""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable

from bench.baseline import MinimalEngine
from bench.common import Figure, against, print_table, write_json
from bench.loadgen import SEATS, script
from raffe.v1 import common_pb2
from services.core.codec import dumps
from services.core.engine_service import EngineService
from services.core.eventstore import EventStore, open_store
from services.core.local_redis import RedisServer
from services.core.loop import run
from services.core.runtime import GameRuntime
from services.core.settings import StoreSettings
from services.games import GAMES
from services.kernel.game import SeatSpec

GAME = "giraffe-raffe"
Sides = dict[str, list[tuple[float, float]]]  # side -> (CPU us, wall us) a move, per round
CACHE_BYTES = 64 << 20


async def raffe_moves(store: EventStore, moves: int) -> Callable[[], Awaitable[None]]:
    """A run of ``moves`` commands through a fresh engine, its games created (untimed)."""
    runtime = GameRuntime(GAMES[GAME], store, CACHE_BYTES)
    engine = EngineService(runtime)
    commands: list[common_pb2.Command] = []
    while len(commands) < moves:
        seed = f"work-{uuid.uuid4().hex[:8]}"
        created = await runtime.create([SeatSpec("human")] * SEATS[GAME], {}, seed=seed)
        for seat, version, command in script(GAME, seed):
            commands.append(
                common_pb2.Command(
                    game_id=created.game_id,
                    seat=seat,
                    command_json=dumps(command),
                    command_id=uuid.uuid4().hex,
                    expected_version=version,
                )
            )

    async def go() -> None:
        for command in commands[:moves]:
            await engine._execute(command)

    return go


async def chain_moves(store: EventStore, moves: int) -> Callable[[], Awaitable[None]]:
    """A run of ``moves`` appends through the chain's engine, 60 to a game."""
    engine = MinimalEngine(store)
    prefix = uuid.uuid4().hex[:8]
    requests = [
        common_pb2.ExecuteRequest(
            command=common_pb2.Command(
                game_id=f"chain-{prefix}-{n // 60}", seat=0, command_id=uuid.uuid4().hex
            )
        )
        for n in range(moves)
    ]

    async def go() -> None:
        for request in requests:
            await engine.Execute(request, None)

    return go


async def timed(work: Callable[[], Awaitable[None]], moves: int) -> tuple[float, float]:
    """CPU and wall microseconds per move of one run."""
    wall, cpu = time.perf_counter(), time.process_time()
    await work()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return cpu / moves * 1e6, wall / moves * 1e6


async def rounds_on(store: EventStore, moves: int, rounds: int) -> Sides:
    """Each side's (CPU, wall) per move in every round, the two in turn (ABBA)."""
    got: Sides = {"raffe": [], "chain": []}
    makers = {"raffe": raffe_moves, "chain": chain_moves}
    for r in range(rounds):
        for side in ("chain", "raffe") if r % 2 == 0 else ("raffe", "chain"):
            work = await makers[side](store, moves)
            cpu, wall = await timed(work, moves)
            got[side].append((cpu, wall))
            print(
                f"  round {r + 1}/{rounds} {side}: {cpu:.0f} us CPU, {wall:.0f} us wall a move",
                file=sys.stderr,
                flush=True,
            )
    return got


async def measure(moves: int, rounds: int) -> Sides:
    """rounds_on a Redis of its own, configured as `make run`'s."""
    server = RedisServer(appendonly=True, directory=tempfile.mkdtemp()).start()
    try:
        store = await open_store(StoreSettings(redis_url=server.url))
        try:
            return await rounds_on(store, moves, rounds)
        finally:
            await store.redis.aclose()
    finally:
        server.stop()


def figures(got: Sides) -> list[Figure]:
    cpu = {side: statistics.median(c for c, _ in runs) for side, runs in got.items()}
    wall = {side: statistics.median(w for _, w in runs) for side, runs in got.items()}
    return [
        Figure("chain engine: CPU per append", cpu["chain"], "us"),
        against("raffe engine: CPU per move", cpu["raffe"], "us", "chain", cpu["chain"]),
        Figure("raffe's own work over the chain's", cpu["raffe"] - cpu["chain"], "us"),
        Figure("chain engine: wall per append", wall["chain"], "us"),
        against("raffe engine: wall per move", wall["raffe"], "us", "chain", wall["chain"]),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--short", action="store_true", help="500 moves, 2 rounds")
    args = parser.parse_args(argv)
    moves, rounds = (500, 2) if args.short else (args.moves, args.rounds)
    found = figures(run(measure(moves, rounds)))
    print_table("an engine's own work a move, in process (one real Redis, AOF always)", found)
    write_json("engine_work", found)


if __name__ == "__main__":
    main()

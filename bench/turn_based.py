"""Turn-based games at scale (#52 item 6): what idle games cost, and a burst of turns.

1. Populates ``--games`` turn-based games in progress straight into the event store (two
   players each, from a pool of ``--players``), lets the notifier read them all, and
   reports Redis's memory per idle game and every process's resident memory.
2. Gives every player a webhook (a receiver in a process of its own, on loopback:
   bench.hook_receiver) and plays one move in each of ``--burst`` games over
   ``--seconds`` through the engine (the seat's bot's choice), which makes the other seat
   due; the notifier is restarted halfway (``--restart``: ``rollout``, a second notifier
   started and then the first SIGTERMed, as a rolling update does; ``term``, SIGTERM and
   the launcher starts it again; ``kill``, a crash; or ``none``). Reports "your turn"
   delivered after the move's answer (p50, p99), duplicates and missed turns.

    python -m bench.turn_based                       # 100,000 games, a burst of 10,000 in a minute
    python -m bench.turn_based --games 5000 --burst 1000 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from threading import Timer
from typing import Any

import redis.asyncio as aioredis

from bench.common import Figure, print_table, rss_mib, stop_all, write_json
from bench.fullstack import start_system
from services.core.codec import to_new
from services.core.eventstore import open_store
from services.core.local_redis import free_port
from services.core.settings import StoreSettings
from services.core.transport import EngineClient
from services.games import GAMES
from services.kernel.errors import RaffeError
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.notifier.channels import set_webhook

SURGE_READY_S = 5.0  # a new notifier is up by then (Kubernetes waits for its readiness)
GAME = GAMES["giraffe-raffe"]  # through its face: bench knows no game's internals
OPTIONS = {"speed": "turn_based", "dealer": 0}


def player(n: int) -> str:
    return f"pl{n:024x}"


class Receiver:
    """Webhook deliveries by Raffe-Delivery, with when each arrived (monotonic): the
    receiver runs in a process of its own (bench.hook_receiver), so this one, which
    makes the moves, does not slow it down."""

    def __init__(self, folder: str) -> None:
        self.path = os.path.join(folder, "deliveries.txt")
        open(self.path, "w").close()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.hook_receiver", self.path],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        port = int(self.process.stdout.readline())
        self.url = f"http://127.0.0.1:{port}/hook"

    @property
    def seen(self) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        with open(self.path) as file:
            for line in file:
                key, _, at = line.rpartition(" ")
                found.setdefault(key, []).append(float(at))
        return found

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


async def populate(settings: StoreSettings, games: int, players: int) -> None:
    store = await open_store(settings)
    now = int(time.time() * 1000)

    async def one(n: int) -> None:
        seats = [SeatSpec("human", player=player(2 * n % players))]
        seats.append(SeatSpec("human", player=player((2 * n + 1) % players)))
        p = Playthrough.start(GAME, OPTIONS, seats, f"tb-{n}", now)
        events = [to_new(e) for e in p.events]
        await store.append(
            f"tb{n}",
            GAME.name,
            0,
            uuid.uuid4().hex,
            events,
            time_ms=now,
            engine_version=GAME.engine_version,
            attended=True,
        )

    for start in range(0, games, 200):
        await asyncio.gather(*(one(n) for n in range(start, min(games, start + 200))))
        print(f"\r  populate: {min(games, start + 200)}/{games} games", end="", file=sys.stderr)
    print(file=sys.stderr)
    await store.redis.aclose()


async def caught_up(settings: StoreSettings, timeout_s: float = 1800.0) -> float:
    """Seconds until the notifier's checkpoint reached every attended log's end."""
    store = await open_store(settings)
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        behind, entries = 0, 0
        for p in range(settings.partitions):
            last: Any = await store.redis.xrevrange(store.keys.attended(p), count=1)
            cp = await store.redis.get(f"{store.keys.tag(p)}:notify:cp")
            newest = int(bytes(last[0][0]).split(b"-")[0]) if last else 0
            if newest > int(cp or 0):
                behind, entries = behind + 1, entries + newest - int(cp or 0)
        print(
            f"\r  notifier: {behind} partitions, {entries} entries behind   ",
            end="",
            file=sys.stderr,
        )
        if not behind:
            break
        await asyncio.sleep(0.5)
    print(file=sys.stderr)
    await store.redis.aclose()
    return time.monotonic() - started


async def backlog(settings: StoreSettings, r: aioredis.Redis) -> str:
    """Where the notifier is: deliveries in its outboxes and how many entries its
    checkpoint is behind the newest attended entry, at worst (entry ids are positions)."""
    pipe = r.pipeline(transaction=False)
    tags = [f"raffe:{{p:{p:02d}}}" for p in range(settings.partitions)]
    for tag in tags:
        pipe.xlen(f"{tag}:notify:outbox")
        pipe.xrevrange(f"{tag}:log:attended", count=1)
        pipe.get(f"{tag}:notify:cp")
    found = await pipe.execute()
    queued, behind = 0, 0
    for i in range(0, len(found), 3):
        queued += int(found[i])
        if found[i + 1]:
            newest = int(bytes(found[i + 1][0][0]).split(b"-")[0])
            behind = max(behind, newest - int(found[i + 2] or 0))
    return f"outbox {queued}, log {behind} entries behind"


async def burst(
    engine: EngineClient, games: int, seconds: float, on_half: Any, watch: Any
) -> dict[str, float]:
    """One move in each of ``games`` games, spread over ``seconds``: the delivery each
    should make -> when its move was answered."""
    answered: dict[str, float] = {}
    failed: list[int] = []
    rng = SeededRng("burst", "moves")
    started = time.monotonic()
    killed = False

    async def move(n: int) -> None:
        await asyncio.sleep(max(0.0, started + seconds * n / games - time.monotonic()))
        try:
            look = await engine.first_to_act(f"tb{n}", [0, 1], -1)
            chosen = GAME.bot("random")(look.view, look.commands, rng)
            done = await engine.execute(f"tb{n}", look.seat, chosen, uuid.uuid4().hex)
        except RaffeError:  # the engine fell behind the load (a move not made: not counted)
            failed.append(n)
            return
        answered[f"tb{n}:{1 - look.seat}:{done.version}:webhook"] = time.monotonic()

    tasks = [asyncio.create_task(move(n)) for n in range(games)]
    while any(not t.done() for t in tasks):
        await asyncio.sleep(0.5)
        if not killed and time.monotonic() - started > seconds / 2:
            killed = True
            on_half()
        where = await watch()
        made = f"{len(answered)}/{games} moves ({len(failed)} refused)"
        print(f"\r  burst: {made}; {where}   ", end="", file=sys.stderr)
    print(file=sys.stderr)
    for t in tasks:
        t.result()
    return answered


async def all_told(receiver: Receiver, answered: dict[str, float], timeout_s: float = 60) -> None:
    """Until every move's turn was told, or ``timeout_s`` (what is missing then is missed)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        missing = len(set(answered) - set(receiver.seen))
        print(f"\r  told: {len(answered) - missing}/{len(answered)}   ", end="", file=sys.stderr)
        if not missing:
            break
        await asyncio.sleep(0.5)
    print(file=sys.stderr)


def second_notifier(pid: int) -> subprocess.Popen[bytes]:
    """Another notifier beside the running one, with its environment (its own port)."""
    with open(f"/proc/{pid}/environ", "rb") as file:
        pairs = [item.split(b"=", 1) for item in file.read().split(b"\0") if b"=" in item]
    env = {k.decode(): v.decode() for k, v in pairs}
    env.update(RAFFE_PORT=str(free_port()), RAFFE_METRICS_PORT="")
    return subprocess.Popen([sys.executable, "-m", "services.notifier"], env=env)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def run(args: argparse.Namespace) -> list[Figure]:
    os.environ.update(
        RAFFE_WEBHOOK_ALLOW_HTTP="true", RAFFE_WEBHOOK_ALLOW_PRIVATE="true", RAFFE_PARTITIONS="16"
    )
    with tempfile.TemporaryDirectory() as state:
        receiver = Receiver(state)
        proc, where, pids = start_system(state)
        try:
            settings = StoreSettings(redis_url=where["redis"], partitions=16)
            r = aioredis.Redis.from_url(where["redis"])
            before = int((await r.info("memory"))["used_memory"])
            await populate(settings, args.games, args.players)
            took = await caught_up(settings)
            used = int((await r.info("memory"))["used_memory"])
            figures = [
                Figure("idle turn-based games", args.games, "games", ""),
                Figure("Redis memory per idle game", (used - before) / args.games, "bytes", ""),
                Figure("the notifier reading them", took, "s", ""),
                *(Figure(f"RSS {name}", rss_mib(pid), "MiB", "") for name, pid in pids.items()),
            ]
            for n in range(args.players):
                await set_webhook(r, "raffe", player(n), receiver.url, "raffe")
            engine = EngineClient.connect(where["engine:giraffe-raffe"])

            surged: list[subprocess.Popen[bytes]] = []

            def restart_notifier() -> None:
                # A rollout (Kubernetes' rolling update: the new pod runs, then the old is
                # SIGTERMed and gives its leases back); a restart in place (SIGTERM, the
                # launcher starts it again); or a crash (SIGKILL: its leases lapse first).
                if args.restart == "rollout":
                    surged.append(second_notifier(pids["notifier"]))
                    Timer(SURGE_READY_S, os.kill, (pids["notifier"], signal.SIGTERM)).start()
                elif args.restart != "none":
                    sig = signal.SIGKILL if args.restart == "kill" else signal.SIGTERM
                    os.kill(pids["notifier"], sig)
                print(f"\n  notifier: {args.restart}", file=sys.stderr)

            answered = await burst(
                engine, args.burst, args.seconds, restart_notifier, lambda: backlog(settings, r)
            )
            await all_told(receiver, answered)
            await asyncio.sleep(2.0)  # a duplicate, if any, would come by now
            seen = receiver.seen
            told = {k: v for k, v in seen.items() if k in answered}
            waits = [v[0] - answered[k] for k, v in told.items()]
            late = sorted(
                answered[k] - min(answered.values())
                for k, v in told.items()
                if v[0] - answered[k] > 5
            )
            if late:
                print(
                    f"  told after 5 s: {len(late)}, moved {late[0]:.1f}-{late[-1]:.1f} s in",
                    file=sys.stderr,
                )
            figures += [
                Figure("burst: moves", len(answered), "turns due", ""),
                Figure("burst: told p50", percentile(waits, 0.5), "s", ""),
                Figure("burst: told p99", percentile(waits, 0.99), "s", ""),
                Figure("burst: duplicates", sum(len(v) - 1 for v in seen.values()), "", ""),
                Figure("burst: missed", len(answered) - len(told), "", ""),
            ]
            await engine.close()
            await r.aclose()
            return figures
        finally:
            for extra in surged:
                extra.terminate()
                extra.wait(30)
            stop_all([proc])
            receiver.stop()
            said = proc.stdout.read() if proc.stdout else ""  # the launcher's restarts
            for line in said.splitlines():
                if "exited" in line or "restarted" in line or "keeps" in line:
                    print(f"  launcher: {line}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=4_000)
    parser.add_argument("--burst", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--restart",
        choices=["rollout", "term", "kill", "none"],
        default="rollout",
        help="halfway: a rolling update (a second notifier, then SIGTERM to the first), "
        "SIGTERM (restarted in place), SIGKILL (a crash), or neither",
    )
    args = parser.parse_args(argv)
    figures = asyncio.run(run(args))
    print_table("turn-based games at scale", figures)
    write_json("turn_based", figures)


if __name__ == "__main__":
    main()

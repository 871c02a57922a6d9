"""Replicated Redis under load (#29 item 2, the longer run): what waiting for a replica
costs an append, and how long players wait through failovers.

    python -m bench.failover [--cycles 6] [--people 8] [--appends 3000]

1. Appends on a local Sentinel group (a primary, two replicas), with
   RAFFE_REDIS_WAIT_REPLICAS=1 against 0 (the baseline) in interleaved rounds:
   appends/s and latency p50/p99.
2. The whole system under --sentinel, ``people`` players voting in Giraffometer games
   (a think time of 0.2-1 s, every vote sent again with its command id until answered)
   and bot games of Riff Raff throughout; ``cycles`` strikes on the primary, alternately
   SIGKILL and SIGSTOP-until-replaced. Per strike: the longest wait between two
   acknowledged moves of anyone (against the longest such wait in a quiet spell of the
   same length before the first strike). At the end: every acknowledged vote is in its
   game's log, every log is one unbroken history, every bot game finished.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import re
import signal
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from redis import Redis as SyncRedis

from bench.common import Figure, against, launch, print_table, stop_all, write_json
from services.core.eventstore import NewEvent, open_store
from services.core.local_sentinel import SERVICE, SentinelGroup
from services.core.settings import StoreSettings

SYSTEM_ENV = {
    "RAFFE_REDIS_TIMEOUT_S": "1",
    "RAFFE_REQUEST_TIMEOUT_S": "2",
    "RAFFE_READ_WAIT_MS": "1000",
    "RAFFE_REDIS_WAIT_MS": "500",
    "RAFFE_LEASE_MS": "1500",
}


# -- 1. the cost of waiting for a replica ------------------------------------------


async def appends(group: SentinelGroup, replicas: int, count: int) -> tuple[float, list[float]]:
    settings = StoreSettings(
        key_prefix=f"bench{uuid.uuid4().hex[:6]}",
        redis_sentinels=group.sentinel_addresses,
        redis_wait_replicas=replicas,
    )
    store = await open_store(settings)
    latencies: list[float] = []
    games = [f"g{n}" for n in range(16)]

    async def play(game: str) -> None:
        for version in range(count // len(games)):
            event = NewEvent(id=uuid.uuid4().hex, type="Moved", payload=b'{"n":1}')
            started = time.perf_counter()
            await store.append(
                game, "bench", version, uuid.uuid4().hex, [event], time_ms=0, engine_version="bench"
            )
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(play(g) for g in games))
    took = time.perf_counter() - started
    await store.redis.aclose()
    return len(latencies) / took, latencies


def wait_cost(count: int, rounds: int = 3) -> list[Figure]:
    with tempfile.TemporaryDirectory() as directory:
        group = SentinelGroup(Path(directory), appendfsync="everysec").start()
        try:
            got: dict[int, list[tuple[float, list[float]]]] = {0: [], 1: []}
            for r in range(rounds):
                for replicas in (0, 1):
                    got[replicas].append(asyncio.run(appends(group, replicas, count)))
                    rate = got[replicas][-1][0]
                    print(
                        f"round {r + 1}/{rounds}, WAIT {replicas}: {rate:.0f} appends/s", flush=True
                    )
        finally:
            group.stop()
    figures = []
    base = statistics.median(g[0] for g in got[0])
    waited = statistics.median(g[0] for g in got[1])
    figures.append(against("appends/s, WAIT 1", waited, "/s", "WAIT 0", base))
    for q, name in ((0.5, "p50"), (0.99, "p99")):
        base_q = statistics.median(quantile(g[1], q) for g in got[0]) * 1000
        wait_q = statistics.median(quantile(g[1], q) for g in got[1]) * 1000
        figures.append(against(f"append {name}, WAIT 1", wait_q, "ms", "WAIT 0", base_q))
    return figures


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# -- 2. failovers under load --------------------------------------------------------


class Person(threading.Thread):
    """Both seats of a Giraffometer game, voting after a think time, each vote sent
    again with its command id until answered; a new game when one ends."""

    def __init__(self, base: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.base, self.stop = base, stop
        self.acked: list[tuple[float, str, set[str]]] = []  # time, game, event ids
        self.games: list[str] = []
        self.refused: dict[int, int] = {}

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=5) as http:
            while not self.stop.is_set():
                game = http.post(
                    "/v1/games",
                    json={
                        "game": "giraffometer",
                        "seats": [{"kind": "human"}] * 2,
                        "options": {"target": 100},
                    },
                ).json()
                if "game_id" not in game:
                    time.sleep(0.5)
                    continue
                self.games.append(game["game_id"])
                self.play(http, game)

    def play(self, http: httpx.Client, game: dict[str, Any]) -> None:
        for seat in itertools.cycle(("0", "1")):
            if self.stop.is_set():
                return
            time.sleep(random.uniform(0.2, 1.0))
            status = self.vote(http, game, seat)
            if status == 409:  # the game ended (or this seat voted): a new one
                return

    def vote(self, http: httpx.Client, game: dict[str, Any], seat: str) -> int:
        body = {
            "command": {"type": "vote", "lowest": 1, "highest": 2},
            "command_id": uuid.uuid4().hex,
        }
        url = f"/v1/games/{game['game_id']}/commands"
        headers = {"Authorization": f"Bearer {game['tokens'][seat]}"}
        while not self.stop.is_set():
            try:
                sent = http.post(url, json=body, headers=headers)
            except httpx.TransportError:
                time.sleep(0.05)
                continue
            if sent.status_code == 200:
                ids = {e["id"] for e in sent.json()["events"]}
                self.acked.append((time.monotonic(), game["game_id"], ids))
                return 200
            self.refused[sent.status_code] = self.refused.get(sent.status_code, 0) + 1
            if sent.status_code != 503:
                return sent.status_code
            time.sleep(0.05)
        return 0


def sentinel_primary(sentinels: str) -> int:
    for address in sentinels.split(","):
        try:
            named: Any = SyncRedis(
                port=int(address.rpartition(":")[2]), socket_timeout=1
            ).sentinel_get_master_addr_by_name(SERVICE)
            return int(named[1])
        except Exception:
            continue
    raise RuntimeError("no sentinel answered")


def role(port: int) -> str:
    try:
        return str(SyncRedis(port=port, socket_timeout=1).info("replication")["role"])
    except Exception:
        return "down"


def node_pid(output: str, port: int) -> int:
    found = re.findall(
        rf"redis (?:primary|replica) at redis://127.0.0.1:{port}/0 \(pid (\d+)"
        rf"|redis node on port {port} restarted \(pid (\d+)",
        output,
    )
    pid = [a or b for a, b in found][-1]
    return int(pid)


def longest_gap(times: list[float], start: float, end: float) -> float:
    inside = sorted(t for t in times if start <= t <= end)
    return max((b - a for a, b in itertools.pairwise(inside)), default=end - start)


def strike(output: list[str], sentinels: str, kind: str) -> None:
    old = sentinel_primary(sentinels)
    pid = node_pid("".join(output), old)
    os.kill(pid, signal.SIGKILL if kind == "kill" else signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            new = sentinel_primary(sentinels)
            if new != old and role(new) == "master":
                break
            time.sleep(0.1)
    finally:
        if kind == "freeze":
            os.kill(pid, signal.SIGCONT)
    deadline = time.monotonic() + 60
    while role(old) != "slave" and time.monotonic() < deadline:
        time.sleep(0.2)


def failovers(cycles: int, people: int, spell: float = 15.0) -> list[Figure]:
    os.environ.update(SYSTEM_ENV)
    system, text = launch("--sentinel")
    output = [text]
    threading.Thread(target=lambda: output.extend(system.stdout or []), daemon=True).start()
    base = re.search(r"gateway: (http://\S+)", text)
    sentinels = re.search(r"redis sentinels at (\S+)", text)
    assert base and sentinels, text
    stop = threading.Event()
    crowd = [Person(base.group(1), stop) for _ in range(people)]
    for person in crowd:
        person.start()
    http = httpx.Client(base_url=base.group(1), timeout=10)
    bots: list[str] = []
    try:
        quiet_from = time.monotonic()
        time.sleep(spell)

        def times() -> list[float]:
            return [t for p in crowd for t, _, _ in p.acked]

        quiet = longest_gap(times(), quiet_from, time.monotonic())
        windows: dict[str, list[float]] = {"kill": [], "freeze": []}
        for cycle in range(cycles):
            kind = ("kill", "freeze")[cycle % 2]
            bots += [
                http.post(
                    "/v1/games", json={"game": "riff-raff", "seats": [{"kind": "bot"}] * 3}
                ).json()["game_id"]
            ]
            struck = time.monotonic()
            strike(output, sentinels.group(1), kind)
            time.sleep(max(0.0, struck + spell - time.monotonic()))
            window = longest_gap(times(), struck - 1.0, time.monotonic())
            windows[kind].append(window)
            print(
                f"cycle {cycle + 1}/{cycles}: {kind}, longest wait {window:.2f} s "
                f"({sum(len(p.acked) for p in crowd)} moves acknowledged)",
                flush=True,
            )
            time.sleep(6.0)  # the old node back on its disk (the launcher: 5 s)
        stop.set()
        for person in crowd:
            person.join(timeout=30)
        lost, forks = check(http, crowd, bots)
    finally:
        stop.set()
        stop_all([system])
    acked = sum(len(p.acked) for p in crowd)
    print(f"{acked} moves acknowledged, {lost} lost, {forks} logs forked", flush=True)
    assert lost == 0 and forks == 0, (lost, forks)
    figures = [Figure("acknowledged moves lost", lost, ""), Figure("forked logs", forks, "")]
    for kind, values in windows.items():
        if values:
            figures.append(
                against(
                    f"longest wait, {kind} (median)",
                    statistics.median(values),
                    "s",
                    "quiet spell",
                    quiet,
                )
            )
            figures.append(
                against(f"longest wait, {kind} (max)", max(values), "s", "quiet spell", quiet)
            )
    return figures


def events_of(http: httpx.Client, game: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    while page := http.get(f"/v1/games/{game}/events", params={"after": len(out)}).json()["events"]:
        out += page
    return out


def check(http: httpx.Client, crowd: list[Person], bots: list[str]) -> tuple[int, int]:
    """Acknowledged votes missing from their logs; logs with a gap or a repeat."""
    lost = forks = 0
    games = {g for p in crowd for g in p.games} | set(bots)
    stored = {}
    for game in games:
        events = events_of(http, game)
        stored[game] = {e["id"] for e in events}
        versions = [e["version"] for e in events]
        forks += versions != list(range(1, len(versions) + 1))
    for person in crowd:
        lost += sum(1 for _, game, ids in person.acked if not ids <= stored[game])
    deadline = time.monotonic() + 120
    for game in bots:
        while not http.get(f"/v1/games/{game}").json()["view"]["status"]["over"]:
            if time.monotonic() > deadline:
                raise AssertionError(f"bot game {game} did not finish")
            time.sleep(0.5)
    return lost, forks


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cycles", type=int, default=6)
    parser.add_argument("--people", type=int, default=8)
    parser.add_argument("--appends", type=int, default=3000)
    args = parser.parse_args(argv)
    figures = wait_cost(args.appends)
    print_table("an append waiting for one replica (local Sentinel group)", figures)
    more = failovers(args.cycles, args.people)
    print_table(f"{args.cycles} failovers under {args.people} players and bots", more)
    write_json("failover", figures + more)


if __name__ == "__main__":
    main()

"""Tournament throughput: games per second of a bot tournament run by the whole system
(`python -m services.launcher`) with one replica of every worker, then with two, on this
machine, and where the CPU goes (engines, Redis, bot runners, tournament service,
projection, gateway), read from /proc for every process of the system.

    python -m bench.tournament [--short] [--cluster]

The tournament: Swiss, tables of 3, rounds rotating Giraffe Raffe, Giraffometer (to 3
crystals) and Riff Raff, random bots; 18 players x 8 rounds = 48 games (short: 12 x 4 =
16). Prints one table with the two-replica figure's ratio to the one-replica baseline
and writes bench/results/tournament.json.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import httpx
from redis import Redis, RedisCluster

from bench.common import (
    Figure,
    launch,
    pids_on,
    print_table,
    service_pids,
    with_cpu,
    write_json,
)
from services.core.eventstore import Keys
from services.core.settings import StoreSettings
from services.core.transport import EngineClient
from services.kernel.game import SeatSpec
from services.tournament.rules import ORGANISER

GROUPS = {
    "engine": ("giraffe-raffe", "giraffometer", "riff-raff"),
    "tournament": ("tournament",),
    "bots": ("bot runner",),
    "projection": ("projection",),
    "gateway": ("gateway",),
}


def start(
    replicas: int, cluster: bool, state: str
) -> tuple[subprocess.Popen[str], str, dict[str, int], str]:
    args = ["--state-dir", state, "--replicas", str(replicas)] + (["--cluster"] if cluster else [])
    proc, text = launch(*args)
    gateway = re.search(r"gateway: (http://\S+)", text)
    assert gateway, text
    pids = service_pids(text)
    ports = re.findall(r"redis://127\.0\.0\.1:(\d+)", text)
    for port in ports:
        pids |= {f"redis {p}": p for p in pids_on(port)}
    return proc, gateway.group(1), pids, f"redis://127.0.0.1:{ports[0]}/0"


OPTIONS = {
    "games": ["giraffe-raffe", "giraffometer", "riff-raff"],
    "format": "swiss",
    "table_size": 3,
    "game_options": {"giraffometer": {"target": 3}},
}
ENGINE_AT = re.compile(r"^(?P<name>[\w-]+) engine (?:#\d+ )?at (?P<address>\S+) ", re.M)


def play(
    url: str, players: int, rounds: int, label: str, redis_url: str = "", seeded: str = ""
) -> float:
    """Run one tournament to its end; returns its wall time in seconds. With
    ``redis_url`` (a single node), says how long each round took (round_times). With
    ``seeded`` (what the launcher printed), the tournament is set up over gRPC with a
    fixed id and seed (``seeded_tournament``): every run plays the same games."""
    with httpx.Client(base_url=url, timeout=60) as http:
        if seeded:
            tid, start = seeded_tournament(engine_target(seeded, "tournament"), players, rounds)
        else:
            tid, start = rest_tournament(http, players, rounds)
        started = time.perf_counter()
        start()
        deadline = started + 900
        while time.perf_counter() < deadline:
            t = http.get(f"/v1/tournaments/{tid}").json()
            done, total = t["progress"]["finished"], players // 3 * rounds
            print(f"\r  {label}: {done}/{total} games", end="", file=sys.stderr, flush=True)
            if t["status"]["over"]:
                elapsed = time.perf_counter() - started
                print(f"\r  {label}: {total} games in {elapsed:.1f}s", file=sys.stderr)
                if redis_url:
                    print(f"  {label}: {round_times(redis_url, tid)}", file=sys.stderr)
                return elapsed
            time.sleep(0.2)
    raise RuntimeError("the tournament did not end in 15 minutes")


def rest_tournament(
    http: httpx.Client, players: int, rounds: int
) -> tuple[str, Callable[[], None]]:
    """A tournament of random bots made through the API as any organiser makes one; its
    id, and what starts it."""
    created = http.post("/v1/tournaments", json={**OPTIONS, "rounds": rounds}).json()
    tid = created["tournament_id"]
    auth = {"Authorization": f"Bearer {created['organiser_token']}"}
    for i in range(players):
        bot = {"name": f"bot{i}", "kind": "bot", "bot_level": "random"}
        http.post(f"/v1/tournaments/{tid}/players", json=bot, headers=auth).raise_for_status()

    def start() -> None:
        http.post(f"/v1/tournaments/{tid}/start", headers=auth).raise_for_status()

    return tid, start


def engine_target(launched: str, game: str) -> str:
    """The gRPC target of a game's engines as the services get it (every replica)."""
    addresses = [m["address"] for m in ENGINE_AT.finditer(launched) if m["name"] == game]
    return "ipv4:" + ",".join(addresses) if len(addresses) > 1 else addresses[0]


def seeded_tournament(target: str, players: int, rounds: int) -> tuple[str, Callable[[], None]]:
    """The same tournament of random bots every time: made, filled and started over gRPC
    as its organiser, as an operator may (the API takes no seed for a tournament: whoever
    chose it would know every deal). Its seed fixes the pairings and every table's seed,
    and its id every table's id, from which bots draw too: runs at 1, 2 and 4 replicas
    play the same games (unseeded, one run's longest Giraffometer table was twice
    another's, and a round lasts as long as its longest table)."""
    tid = hashlib.sha256(f"bench:{players}:{rounds}".encode()).hexdigest()[:32]

    async def made() -> None:
        engine = EngineClient.connect(target)
        try:
            options = {**OPTIONS, "rounds": rounds}
            await engine.create([SeatSpec("human", "organiser")], options, game_id=tid, seed=tid)
            for i in range(players):
                bot = {"type": "register", "name": f"bot{i}", "kind": "bot", "bot_level": "random"}
                await engine.execute(tid, ORGANISER, bot, f"register:{i}", 0)
        finally:
            await engine.close()

    async def started() -> None:
        engine = EngineClient.connect(target)
        try:
            await engine.execute(tid, ORGANISER, {"type": "start"}, "start", 0)
        finally:
            await engine.close()

    asyncio.run(made())
    return tid, lambda: asyncio.run(started())


def measure(replicas: int, cluster: bool, players: int, rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as state:
        proc, url, pids, redis_url = start(replicas, cluster, state)
        try:
            events_before = events_logged(redis_url, cluster)
            elapsed, used = with_cpu(
                pids,
                lambda: play(
                    url, players, rounds, f"{replicas} replica(s)", "" if cluster else redis_url
                ),
            )
            events = events_logged(redis_url, cluster) - events_before
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
    games = players // 3 * rounds
    cpu = {
        group: sum(v for k, v in used.items() if k.startswith(names))
        for group, names in GROUPS.items()
    }
    cpu["redis"] = sum(v for k, v in used.items() if k.startswith("redis"))
    return {"games_per_s": games / elapsed, "games": games, "events": events, "cpu": cpu}


TABLE_STREAM = re.compile(rb"\}:game:(?P<t>[0-9a-f]+)-r(?P<round>\d+)-t(?P<table>\d+)$")


def round_times(redis_url: str, tournament_id: str) -> str:
    """Each round's span and its slowest table, from the append times its tables' streams
    record (field "m" of the first and last event): what bounds a tournament's games/s."""
    client: Any = Redis.from_url(redis_url)  # untyped replies: bytes here (no decoding)
    spans: dict[int, list[tuple[int, int]]] = {}
    try:
        for key in client.scan_iter(match=f"*:game:{tournament_id}-r*-t*", count=1000):
            found = TABLE_STREAM.search(key)
            if found is None or found["t"].decode() != tournament_id:
                continue  # a table's meta, seats, command ids or read model

            first, last = client.xrange(key, count=1), client.xrevrange(key, count=1)
            span = (int(first[0][1][b"m"]), int(last[0][1][b"m"]))
            spans.setdefault(int(found["round"]), []).append(span)
    finally:
        client.close()
    if not spans:
        return "no table streams found"
    start = min(a for tables in spans.values() for a, _ in tables)
    parts = []
    for number, tables in sorted(spans.items()):
        begun, ended = min(a for a, _ in tables), max(b for _, b in tables)
        slowest = max(b - a for a, b in tables)
        parts.append(
            f"round {number} {(begun - start) / 1000:.2f}-{(ended - start) / 1000:.2f} s "
            f"(slowest table {slowest / 1000:.2f} s)"
        )
    return "; ".join(parts)


def events_logged(redis_url: str, cluster: bool) -> int:
    """Every event appended so far (the partition logs' sequence numbers): games vary in
    length from run to run, so CPU is reported per event."""
    settings = StoreSettings.from_env()
    keys = Keys(settings.key_prefix, settings.partitions)
    client: Any = (RedisCluster if cluster else Redis).from_url(redis_url)
    try:
        return sum(int(client.get(keys.log_seq(p)) or 0) for p in range(keys.partitions))
    finally:
        client.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--cluster", action="store_true", help="a 3-primary Redis Cluster")
    args = parser.parse_args(argv)
    players, rounds = (12, 4) if args.short else (18, 8)
    one = measure(1, args.cluster, players, rounds)
    two = measure(2, args.cluster, players, rounds)
    figures = [
        Figure("games/s, 1 replica of every worker", one["games_per_s"], "games/s"),
        Figure(
            "games/s, 2 replicas of every worker",
            two["games_per_s"],
            "games/s",
            "1 replica",
            two["games_per_s"] / one["games_per_s"],
        ),
    ]
    for label, got in (("1 replica", one), ("2 replicas", two)):
        total = sum(got["cpu"].values())
        figures.append(Figure(f"events per game ({label})", got["events"] / got["games"], ""))
        for group, seconds in got["cpu"].items():
            per_event = 1e6 * seconds / max(got["events"], 1)
            share = seconds / total if total else 0.0
            figures.append(
                Figure(f"CPU per event, {group} ({label})", per_event, "us", "all CPU", share)
            )
    print_table(f"bot tournament, {one['games']} games (one machine, 2 cores)", figures)
    print(f"written to {write_json('tournament', figures)}")


if __name__ == "__main__":
    main()

"""Idle is free (#58 item 3): what open streams on games where nothing moves cost, beside
the baseline (bench.sse_baseline) holding as many in the same run.

    python -m bench.idle_streams [OLD] [--streams 50000] [--heartbeat 15] [--seconds 60]
                                 [--gateways N] [--rounds 1]

Starts the system as `make run` does (and OLD's code from a git worktree when given,
rounds interleaved), with ``--gateways`` gateways (a process holds at most ~19,000
sockets here: the machine's open-file limit, which a container cannot raise) and as many
baseline servers. Creates turn-based tables of four, then measures two windows of
``--seconds``: one with no stream open, one with every seat of every table holding its
stream on a gateway and the same number on the baselines (a table's streams on one
process, opened by client processes from loopback addresses of their own). What the
streams add over the empty system is reported: CPU of the gateways, the baselines and
Redis, Redis commands a second, memory per stream, pings per stream and heartbeat; as
CPU per stream-heartbeat against the baseline's (the target: heartbeats at their interval
and nothing else), and the working tree against OLD.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import multiprocessing
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import redis

from bench.common import (
    Figure,
    against,
    cpu_seconds,
    launch,
    pids_on,
    print_table,
    rss_mib,
    service_pids,
    stop_all,
    write_json,
)
from bench.crowd import second_gateway
from bench.rawhttp import build
from bench.revisions import ROOT, checkout
from bench.sse_baseline import start_baseline

PER_PROCESS = 16_000  # streams a gateway, a baseline or a client process holds at most
SEATS = 4


@dataclass
class Target:
    host: str
    port: int


def raise_file_limit() -> None:
    """As many sockets as the hard limit allows (children inherit it)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


# -- the client: processes holding streams ----------------------------------------------


class Idle(asyncio.Protocol):
    """A stream held open: counts its pings and the bytes it got; ``answer`` is done with
    whether the server took it (200)."""

    def __init__(self, request: bytes, tally: list[int]) -> None:
        self.request, self.tally = request, tally
        self.answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        transport.write(self.request)  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        if not self.answer.done():
            self.answer.set_result(data.startswith(b"HTTP/1.1 200"))
        self.tally[2] += data.count(b": ping")
        self.tally[3] += len(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.answer.done():
            self.answer.set_result(False)


def hold(jobs: list[tuple[str, int, str, str]], source: str, shared: Any, stop: Any) -> None:
    """A client process: opens ``jobs`` (host, port, path, token) from ``source`` and holds
    them until ``stop``; ``shared``: answered, refused, pings, bytes. A refused stream (a
    gateway past its deadline while thousands open at once) is asked for again."""
    raise_file_limit()

    async def run() -> None:
        loop, tally = asyncio.get_running_loop(), [0, 0, 0, 0]
        gate = asyncio.Semaphore(100)

        async def open_one(host: str, port: int, path: str, token: str) -> None:
            headers = {"Accept": "text/event-stream"}
            if token:
                headers["Authorization"] = f"Bearer {token}"
            request = build("GET", path, headers)
            for attempt in range(5):
                async with gate:
                    _, idle = await loop.create_connection(
                        lambda: Idle(request, tally), host, port, local_addr=(source, 0)
                    )
                    if await idle.answer:
                        tally[0] += 1
                        return
                if idle.transport is not None:
                    idle.transport.close()
                await asyncio.sleep(1 + attempt)
            tally[1] += 1

        opening = asyncio.gather(*(open_one(*job) for job in jobs))
        while not stop.is_set():
            shared[:] = tally
            await asyncio.sleep(0.2)
        opening.cancel()

    asyncio.run(run())


# -- one system's measurement -----------------------------------------------------------


def tables(url: str, count: int) -> list[dict[str, Any]]:
    """``count`` turn-based tables of four people, created over HTTP."""

    async def run() -> list[dict[str, Any]]:
        made: list[dict[str, Any]] = []
        body = {
            "game": "giraffe-raffe",
            "seats": [{"kind": "human"}] * SEATS,
            "options": {"speed": "turn_based"},
        }
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:

            async def create() -> None:
                while len(made) < count:
                    answer = await http.post("/v1/games", json=body)
                    answer.raise_for_status()
                    made.append(answer.json())
                    if len(made) % 1000 == 0:
                        say(f"    {len(made)}/{count} tables")

            await asyncio.gather(*(create() for _ in range(16)))
        return made[:count]

    return asyncio.run(run())


def usage(pids: dict[str, int], redis_url: str) -> dict[str, float]:
    """CPU seconds so far by process, Redis's commands, and RSS in MiB by process."""
    out = {f"cpu {n}": cpu_seconds(p) for n, p in pids.items()}
    out |= {f"rss {n}": rss_mib(p) for n, p in pids.items()}
    out["commands"] = float(
        redis.Redis.from_url(redis_url).info("stats")["total_commands_processed"]
    )
    return out


def window(pids: dict[str, int], redis_url: str, seconds: float) -> dict[str, float]:
    """CPU ms a second by process and Redis commands a second over ``seconds``; RSS."""
    before = usage(pids, redis_url)
    time.sleep(seconds)
    after = usage(pids, redis_url)
    out = {k: (after[k] - before[k]) * 1000 / seconds for k in after if k.startswith("cpu")}
    out["commands"] = (after["commands"] - before["commands"]) / seconds
    out |= {k: v for k, v in after.items() if k.startswith("rss")}
    return out


def measure(cwd: str | None, args: argparse.Namespace) -> dict[str, float]:
    """One system (the working tree's, or OLD's at ``cwd``): the streams' addition."""
    os.environ["RAFFE_SSE_HEARTBEAT_S"] = str(args.heartbeat)
    os.environ["RAFFE_MAX_STREAMS"] = str(PER_PROCESS + 1000)
    system, text = launch("--state-dir", tempfile.mkdtemp(), cwd=cwd)
    others: list[subprocess.Popen[Any]] = []
    try:
        found = re.search(r"gateway: (http://\S+)", text), re.search(r"at (redis://\S+)", text)
        assert found[0] and found[1], text
        gateways, redis_url = [found[0].group(1)], found[1].group(1)
        for _ in range(args.gateways - 1):
            process, url = second_gateway(text, cwd=cwd)
            others.append(process)
            gateways.append(url)
        redis_pid = pids_on(redis_url.rsplit(":", 1)[1].split("/")[0])[0]
        watch = {"redis": redis_pid, "gateway0": service_pids(text)["gateway"]}
        watch |= {f"gateway{i + 1}": p.pid for i, p in enumerate(others)}
        targets = [Target("127.0.0.1", int(u.rsplit(":", 1)[1])) for u in gateways]
        for i in range(args.gateways):
            server, port = start_baseline(redis_url, args.heartbeat)
            others.append(server)
            watch[f"baseline{i}"] = server.pid
            targets.append(Target("127.0.0.1", port))
        say(f"    {args.streams // SEATS} tables ...")
        made = tables(gateways[0], args.streams // SEATS)
        time.sleep(2 * args.heartbeat)
        quiet = window(watch, redis_url, args.seconds)
        say(f"    quiet: {fmt(quiet)}")
        with Clients(jobs_of(made, targets, args.gateways)) as clients:
            clients.wait_open(args.streams * 2)
            time.sleep(2 * args.heartbeat)
            pings_before = clients.counts()[2]
            busy = window(watch, redis_url, args.seconds)
            counts = clients.counts()
            say(f"    streams: {fmt(busy)}; client {counts}")
        return added(quiet, busy, counts[2] - pings_before, args)
    finally:
        stop_all([system])
        for process in others:
            process.terminate()
            process.wait(30)


def jobs_of(
    made: list[dict[str, Any]], targets: list[Target], gateways: int
) -> list[tuple[str, int, str, str]]:
    """Every seat's stream on a gateway (a table's on one), and one for it on the
    baseline with the same index."""
    jobs = []
    for i, table in enumerate(made):
        gateway, base = targets[i % gateways], targets[gateways + i % gateways]
        game = table["game_id"]
        path = f"/v1/games/{game}/events/stream?after={table['version']}"
        for token in table["tokens"].values():
            jobs.append((gateway.host, gateway.port, path, token))
            jobs.append((base.host, base.port, f"/games/{game}/events", ""))
    return jobs


class Clients:
    """Client processes (spawned), each from a loopback address of its own."""

    def __init__(self, jobs: list[tuple[str, int, str, str]]) -> None:
        context = multiprocessing.get_context("spawn")
        self.stop = context.Event()
        parts = math.ceil(len(jobs) / PER_PROCESS)
        self.shared = [context.Array("q", 4) for _ in range(parts)]
        self.processes = [
            context.Process(
                target=hold,
                args=(jobs[i::parts], f"127.0.0.{i + 2}", self.shared[i], self.stop),
            )
            for i in range(parts)
        ]

    def __enter__(self) -> Clients:
        for process in self.processes:
            process.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for process in self.processes:
            process.join(30)
            if process.is_alive():
                process.kill()

    def counts(self) -> list[int]:
        return [sum(s[k] for s in self.shared) for k in range(4)]

    def wait_open(self, total: int) -> None:
        started = time.monotonic()
        while True:
            answered, refused, *_ = self.counts()
            say(f"    {answered + refused}/{total} streams answered ({refused} refused)")
            if answered + refused >= total or time.monotonic() - started > 900:
                break
            time.sleep(5)
        assert refused == 0, f"{refused} streams refused"


def fmt(w: dict[str, float]) -> str:
    cpu = {k[4:]: round(v, 1) for k, v in w.items() if k.startswith("cpu")}
    return f"cpu ms/s {cpu}, redis {w['commands']:.0f} commands/s"


def added(
    quiet: dict[str, float], busy: dict[str, float], pings: int, args: argparse.Namespace
) -> dict[str, float]:
    """What the streams add, in all and per stream-heartbeat."""

    def cpu(kind: str, w: dict[str, float]) -> float:
        return sum(v for k, v in w.items() if k.startswith(f"cpu {kind}"))

    def rss(kind: str, w: dict[str, float]) -> float:
        return sum(v for k, v in w.items() if k.startswith(f"rss {kind}"))

    beats = args.streams * args.seconds / args.heartbeat  # stream-heartbeats a window
    out: dict[str, float] = {}
    for kind in ("gateway", "baseline", "redis"):
        ms = cpu(kind, busy) - cpu(kind, quiet)
        out[f"{kind} ms/s"] = ms
        out[f"{kind} us per stream-heartbeat"] = ms * args.seconds * 1000 / beats
        out[f"{kind} KiB per stream"] = (rss(kind, busy) - rss(kind, quiet)) * 1024 / args.streams
    out["redis commands/s"] = busy["commands"] - quiet["commands"]
    out["pings per stream-heartbeat"] = pings / (2 * beats)  # both sides' streams
    return out


# -- the runs ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old", nargs="?", default="")
    parser.add_argument("--streams", type=int, default=50_000)
    parser.add_argument("--heartbeat", type=float, default=15.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--gateways", type=int, default=0, help="default: streams / 16,000")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    args.streams -= args.streams % SEATS
    args.gateways = args.gateways or math.ceil(args.streams / PER_PROCESS)
    raise_file_limit()
    runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        old = str(checkout(args.old, Path(tmp) / "old")) if args.old else None
        try:
            for r in range(args.rounds):
                for name, cwd in (("old", old), ("new", None)):
                    if name == "old" and old is None:
                        continue
                    say(f"  round {r + 1}/{args.rounds}: {name}, {args.streams} streams ...")
                    runs[name].append(measure(cwd, args))
        finally:
            if old:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", old])
    title = f"{args.streams} idle streams, heartbeat {args.heartbeat:g} s (what they add)"
    print_table(title, figures(runs))
    print(f"written to {write_json('idle-streams', figures(runs))}")


def figures(runs: dict[str, list[dict[str, float]]]) -> list[Figure]:
    """The gateway against the baseline (same run), Redis's share (the baseline has
    none), and the working tree against OLD."""
    new = {k: statistics.median(r[k] for r in runs["new"]) for k in runs["new"][0]}
    out: list[Figure] = []
    for what in ("ms/s", "us per stream-heartbeat", "KiB per stream"):
        base = new[f"baseline {what}"]
        out.append(against(f"gateway: {what}", new[f"gateway {what}"], "", "baseline", base))
        out.append(Figure(f"baseline: {what}", base, ""))
    for key in ("redis ms/s", "redis us per stream-heartbeat", "redis commands/s"):
        out.append(Figure(key.replace(" ", ": ", 1), new[key], ""))
    out.append(Figure("pings per stream-heartbeat", new["pings per stream-heartbeat"], ""))
    if runs["old"]:
        old = {k: statistics.median(r[k] for r in runs["old"]) for k in runs["old"][0]}
        for key in ("gateway us per stream-heartbeat", "gateway KiB per stream"):
            out.append(against(f"{key} (old: {old[key]:.1f})", new[key], "", "old", old[key]))
        for key in ("redis us per stream-heartbeat", "redis commands/s"):
            out.append(against(f"{key} (old: {old[key]:.1f})", new[key], "", "old", old[key]))
    return out


if __name__ == "__main__":
    main()

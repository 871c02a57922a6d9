"""A round's start at one gateway: every person reads the tournament page and their own
tables at once (#28 item 4's burst, alone).

    python -m bench.page_burst [--people 1000] [--readers 500] [--what page|me|both]
                               [--started] [--profile FILE]

The organiser creates a Swiss tournament of four-seat Giraffe Raffe tables and registers
--people humans; with --started the tournament is started (round 1 paired, its tables
made) before the burst. Then --readers connections, opened beforehand, each send one GET
at the same moment (the page, /me with the reader's player token, or both one after the
other), and again for --bursts bursts. The client is raw sockets (bench.rawhttp), so it
spends a small fraction of the gateway's CPU (printed). Reported: answer latency p50 /
p99 / max, non-200 answers, the gateway's CPU per read, and the client's. --profile
records the gateway with py-spy during the bursts (raw collapsed stacks).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import time
from urllib.parse import urlparse

import httpx

from bench.common import cpu_seconds, launch, service_pids, stop_all
from bench.rawhttp import Conn, build
from bench.tournament_crowd import GAME, SIZE, register, say


async def prepare(url: str, people: int, started: bool) -> tuple[str, list[str]]:
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        options = {
            "name": "a burst",
            "games": [GAME],
            "format": "swiss",
            "table_size": SIZE,
            "rounds": 2,
            "max_players": people,
        }
        created = (await http.post("/v1/tournaments", json=options)).json()
        tid = created["tournament_id"]
        auth = {"Authorization": f"Bearer {created['organiser_token']}"}
        tokens = await register(http, tid, auth, people)
        if started:
            (await http.post(f"/v1/tournaments/{tid}/start", headers=auth)).raise_for_status()
            await asyncio.sleep(3)  # the round's games made, the projection caught up
        page = await http.get(f"/v1/tournaments/{tid}")
        say(f"{people} registered; the page is {len(page.content) / 1024:.0f} KiB")
        return tid, tokens


async def burst(conns: list[Conn], requests: list[list[bytes]]) -> tuple[list[float], int]:
    """Every connection sends its requests one after the other, all starting at once."""
    latencies: list[float] = []
    failed = 0

    async def one(conn: Conn, raws: list[bytes]) -> None:
        nonlocal failed
        start = time.perf_counter()
        for raw in raws:
            status, _ = await conn.request(raw)
            failed += status != 200
        latencies.append(time.perf_counter() - start)

    await asyncio.gather(*(one(c, r) for c, r in zip(conns, requests, strict=True)))
    return latencies, failed


def spy_on(pid: int, out: str) -> subprocess.Popen[bytes]:
    """py-spy recording ``pid`` into ``out`` (raw collapsed stacks) until interrupted."""
    command = ["py-spy", "record", "-p", str(pid), "-r", "250", "-f", "raw", "-o", out]
    return subprocess.Popen([*command, "--nonblocking"], stderr=subprocess.DEVNULL)


async def run(args: argparse.Namespace, url: str, gateway_pid: int) -> None:
    tid, tokens = await prepare(url, args.people, args.started)
    host = urlparse(url)
    conns = [await Conn.open(host.hostname or "", host.port or 80) for _ in range(args.readers)]
    page = build("GET", f"/v1/tournaments/{tid}", {})
    requests = []
    for r in range(args.readers):
        me = build("GET", f"/v1/tournaments/{tid}/me", {"Authorization": f"Bearer {tokens[r]}"})
        requests.append({"page": [page], "me": [me], "both": [me, page]}[args.what])
    await burst(conns[:1], [requests[0]])  # the page made once before the timed bursts
    spy = spy_on(gateway_pid, args.profile) if args.profile else None
    if spy is not None:
        await asyncio.sleep(1)
    reads = 0
    all_latencies: list[float] = []
    failed = 0
    gateway_cpu, client_cpu = cpu_seconds(gateway_pid), time.process_time()
    for b in range(args.bursts):
        latencies, bad = await burst(conns, requests)
        all_latencies += latencies
        failed += bad
        reads += sum(len(r) for r in requests)
        say(f"  burst {b + 1}/{args.bursts}: max {max(latencies) * 1000:.0f} ms")
        await asyncio.sleep(0.5)
    gateway_cpu = cpu_seconds(gateway_pid) - gateway_cpu
    client_cpu = time.process_time() - client_cpu
    if spy is not None:
        spy.send_signal(2)
        spy.wait(timeout=30)
    all_latencies.sort()

    def q(p: float) -> float:
        return all_latencies[min(len(all_latencies) - 1, int(p * len(all_latencies)))]

    print(
        f"{args.readers} readers x {args.bursts} bursts ({args.what}): "
        f"p50 {q(0.5) * 1000:.0f} ms, p99 {q(0.99) * 1000:.0f} ms, "
        f"max {all_latencies[-1] * 1000:.0f} ms, non-200 {failed}; "
        f"gateway CPU {gateway_cpu * 1000 / reads:.2f} ms per read, "
        f"client {client_cpu:.2f} s in all"
    )
    for c in conns:
        c.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--readers", type=int, default=500)
    parser.add_argument("--bursts", type=int, default=5)
    parser.add_argument("--what", choices=("page", "me", "both"), default="page")
    parser.add_argument("--started", action="store_true")
    parser.add_argument("--profile", default="")
    args = parser.parse_args(argv)
    system, text = launch()
    try:
        gateway = re.search(r"gateway: (http://\S+)", text)
        assert gateway, text
        asyncio.run(run(args, gateway.group(1), service_pids(text)["gateway"]))
    finally:
        stop_all([system])


if __name__ == "__main__":
    main()

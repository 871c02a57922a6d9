"""What opening a live stream costs the gateway (#58 item 1), beside the minimal SSE
server (bench.sse_baseline) opening as many in the same run.

    python -m bench.stream_opens [--tables 100] [--opens 2000] [--together 8]

Creates tables of four, then opens each seat's stream, reads its head and closes it,
``--together`` at a time, ``--opens`` times over, on the gateway and on the minimal
server. Prints each one's CPU an open (its process's CPU over the burst, after a warm-up
of a tenth as many): the gateway's open authenticates the seat, reads what the stream
missed, writes and publishes the seat's presence (and its close again), and sends its
head through the middlewares; the minimal server's subscribes to the game's channel.
At human pace with short games (bench.crowd), opens are a large part of a delivery.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time

from bench.common import Figure, against, cpu_seconds, launch, print_table, service_pids, stop_all
from bench.idle_streams import tables
from bench.rawhttp import build
from bench.sse_baseline import start_baseline

Job = tuple[str, dict[str, str]]  # a path and its headers


async def open_one(port: int, path: str, headers: dict[str, str]) -> None:
    """A stream opened, its head read, and closed (the client going away)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(build("GET", path, headers))
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    writer.close()


def burst(port: int, jobs: list[Job], opens: int, together: int) -> float:
    """Seconds to open ``opens`` streams, ``together`` at a time, round the jobs."""

    async def run() -> None:
        for start in range(0, opens, together):
            batch = [jobs[(start + i) % len(jobs)] for i in range(together)]
            await asyncio.gather(*(open_one(port, path, h) for path, h in batch))

    began = time.monotonic()
    asyncio.run(run())
    return time.monotonic() - began


def cpu_an_open(pid: int, port: int, jobs: list[Job], args: argparse.Namespace) -> float:
    """The process's CPU ms an open, over a burst after a warm-up."""
    burst(port, jobs, max(args.opens // 10, args.together), args.together)
    time.sleep(1)
    before = cpu_seconds(pid)
    took = burst(port, jobs, args.opens, args.together)
    time.sleep(1)  # closes' work (presence) lands after the burst
    used = cpu_seconds(pid) - before
    print(f"  {args.opens} opens in {took:.1f} s", file=sys.stderr, flush=True)
    return float(1000 * used / args.opens)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--opens", type=int, default=2000)
    parser.add_argument("--together", type=int, default=8)
    args = parser.parse_args()
    system, text = launch("--state-dir", tempfile.mkdtemp())
    baseline = None
    try:
        found = re.search(r"gateway: (http://\S+)", text), re.search(r"at (redis://\S+)", text)
        assert found[0] and found[1], text
        url, redis_url = found[0].group(1), found[1].group(1)
        print(f"  {args.tables} tables ...", file=sys.stderr, flush=True)
        made = tables(url, args.tables)
        seats = [(t["game_id"], t["tokens"][str(s)]) for t in made for s in range(4)]
        accept = {"Accept": "text/event-stream"}
        ours = [
            (f"/v1/games/{g}/events/stream", {**accept, "Authorization": f"Bearer {token}"})
            for g, token in seats
        ]
        theirs = [(f"/games/{g}/events", accept) for g, _ in seats]
        baseline, base_port = start_baseline(redis_url, 15.0)
        print("  the gateway ...", file=sys.stderr, flush=True)
        gateway = cpu_an_open(service_pids(text)["gateway"], int(url.rsplit(":", 1)[1]), ours, args)
        print("  the minimal SSE server ...", file=sys.stderr, flush=True)
        minimal = cpu_an_open(baseline.pid, base_port, theirs, args)
    finally:
        if baseline is not None:
            baseline.terminate()
            baseline.wait(10)
        stop_all([system])
    print_table(
        f"stream opens ({args.opens}, {args.together} at a time, seats of {args.tables} tables)",
        [
            against("gateway: CPU an open", gateway, "ms", "the minimal SSE server", minimal),
            Figure("minimal SSE server: CPU an open", minimal, "ms"),
        ],
    )


if __name__ == "__main__":
    main()

"""Shared pieces of the benchmarks: timing loops bounded in count and time, tables."""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

from services import launcher

T = TypeVar("T")


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    baseline: str = ""
    ratio: float | None = None


def against(name: str, value: float, unit: str, baseline: str, base: float) -> Figure:
    """A figure with its ratio to the baseline figure ``base`` of the same run."""
    return Figure(name, value, unit, baseline, value / max(base, 1e-9))


async def rate(
    op: Callable[[int], Awaitable[None]],
    workers: int,
    count: int,
    max_seconds: float,
    label: str,
) -> float:
    """Operations per second of ``workers`` tasks sharing ``count`` operations.

    Stops early after ``max_seconds``; prints progress to stderr.
    """
    done = 0
    deadline = time.perf_counter() + max_seconds

    async def worker(w: int) -> None:
        nonlocal done
        while done < count and time.perf_counter() < deadline:
            done += 1
            await op(w)

    start = time.perf_counter()
    progress = asyncio.create_task(_progress(label, lambda: done, count))
    await asyncio.gather(*(worker(w) for w in range(workers)))
    elapsed = time.perf_counter() - start
    progress.cancel()
    print(f"\r  {label}: {done}/{count} done in {elapsed:.2f}s", file=sys.stderr)
    return done / elapsed


async def _progress(label: str, done: Callable[[], int], total: int) -> None:
    while True:
        await asyncio.sleep(0.5)
        print(f"\r  {label}: {done()}/{total}", end="", file=sys.stderr, flush=True)


def print_table(title: str, figures: list[Figure]) -> None:
    print(f"\n{title}")
    print(f"{'figure':<44}{'value':>14} {'unit':<10}{'vs baseline':>28}")
    for f in figures:
        ratio = f"{f.ratio:.2f}x {f.baseline}" if f.ratio is not None else ""
        value = f"{f.value:>14,.2f}" if f.unit == "x" or f.value < 10 else f"{f.value:>14,.1f}"
        print(f"{f.name:<44}{value} {f.unit:<10}{ratio:>28}")


def write_json(name: str, figures: list[Figure]) -> Path:
    out = Path("bench/results")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps([asdict(f) for f in figures], indent=2))
    return path


# What every benchmark's system runs with (a second gateway a benchmark starts too).
LAUNCH_ENV = {
    "RAFFE_RATE_PER_ADDRESS": "1000000",
    "RAFFE_BOT_PACE_MS": "0",  # bots at machine speed
    "RAFFE_RATE_PER_TOKEN": "1000000",
    "RAFFE_CREATES_PER_HOUR": "1000000",
    "RAFFE_STREAMS_PER_ADDRESS": "1000000",
    # The load generator leaves games unfinished with their streams closed: without
    # this, two minutes on, bots would play them out for the "gone" players
    # (docs/fair-table.md) while the next round is measured.
    "RAFFE_GONE_AFTER_S": "86400",
}


def launch(
    *args: str, cwd: str | None = None, log: str | None = None
) -> tuple[subprocess.Popen[str], str]:
    """The system as `make run` starts it (free ports, rate limits off), and what the
    launcher printed up to "raffe is running"; ``cwd``: another checkout's code;
    ``log``: a file for the services' logs (else they are dropped). A run starts from an
    empty Redis unless ``args`` name a state directory: `make run`'s own keeps every
    earlier run's games (bench.crowd's Redis once read 214 MiB of them, 20 fresh)."""
    env = {**os.environ, **LAUNCH_ENV}
    if "--state-dir" not in args:
        state = tempfile.mkdtemp(prefix="raffe-bench-")
        atexit.register(shutil.rmtree, state, True)  # its Redis's files: hundreds of MiB
        args = ("--state-dir", state, *args)
    proc = subprocess.Popen(
        [sys.executable, "-m", "services.launcher", "--free-ports", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=open(log, "w") if log else subprocess.DEVNULL,  # noqa: SIM115 - the child's
        text=True,
        cwd=cwd,
    )
    assert proc.stdout is not None
    text = ""
    for line in proc.stdout:
        text += line
        if "raffe is running" in line:
            break
    return proc, text


def service_pids(launched: str) -> dict[str, int]:
    """Service name -> pid, from the launcher's "<name> at <address> (pid N)" lines."""
    found = re.findall(r"^(.+?) at \S+ \(pid (\d+)\)", launched, re.M)
    # The embedded Redis's line names its version and settings: it is just "redis" here.
    return {"redis" if name.startswith("redis") else name: int(pid) for name, pid in found}


def rss_mib(pid: int) -> float:
    """Resident memory of a process (from /proc; 0 once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return 0.0
    found = re.search(r"VmRSS:\s+(\d+)", status)
    return int(found.group(1)) / 1024 if found else 0.0


def pids_on(port: str) -> list[int]:
    """The processes listening on 127.0.0.1:port (from `ss`)."""
    out = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True)
    return [int(p) for p in re.findall(r"pid=(\d+)", out.stdout)]


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_ticks() -> tuple[int, int]:
    """The machine's (steal, total) CPU ticks so far, from /proc/stat ((0, 0) where there
    is none). Steal is time this virtual machine's CPUs were ready to run and the host ran
    something else: read over a run, its share says how much of the machine the run
    really had."""
    fields = _cpu_line()
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def busy_ticks() -> int:
    """The machine's CPU ticks so far spent running anything: every process, the
    kernel's interrupts and softirqs (loopback networking among them, which no process's
    own time counts), not idle, I/O wait or steal (0 where there is no /proc/stat)."""
    fields = _cpu_line()
    if len(fields) < 7:
        return 0
    user, nice, system, _idle, _iowait, irq, softirq = fields[:7]
    return user + nice + system + irq + softirq


def _cpu_line() -> list[int]:
    """The machine's CPU ticks by kind, /proc/stat's first line ([] where there is none)."""
    try:
        return [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (FileNotFoundError, ValueError):
        return []


def steal_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    """The share (0-1) of the machine's CPU time the host took between two cpu_ticks()."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total > 0 else 0.0


SWITCHES = re.compile(r"^voluntary_ctxt_switches:\s+(\d+)", re.M)


def wakeups(pid: int) -> int:
    """Voluntary context switches of every thread of a process so far (0 once it is
    gone): each is a thread going to sleep to be woken again, so their count per move
    says how often a move woke the process (its event loop, gRPC's poller). Preemptions
    (a quota's throttling among them) are not counted."""
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            text = status.read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += sum(int(n) for n in SWITCHES.findall(text))
    return total


def with_cpu(pids: dict[str, int], work: Callable[[], T]) -> tuple[T, dict[str, float]]:
    """What ``work`` returns, and the CPU seconds each process spent meanwhile (with a
    load's untimed set-up included, so slightly more than its timed part)."""
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    result = work()
    return result, {name: cpu_seconds(pid) - before[name] for name, pid in pids.items()}


def stop_all(processes: list[subprocess.Popen[str]]) -> None:
    """SIGINT to each (the launcher stops its services in order), then wait, then kill."""
    launcher.stop_all(processes, grace_s=30.0, sig=signal.SIGINT)

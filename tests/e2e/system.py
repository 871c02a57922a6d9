"""The whole system as real processes, started the way `make run` starts it (the
launcher, on free ports), for end-to-end tests over HTTP."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx


@dataclass
class System:
    base_url: str
    redis_url: str
    env: dict[str, str]
    process: subprocess.Popen[str]
    # every started process, as the launcher printed it: name -> (address, pid)
    processes: dict[str, tuple[str, int]] = field(default_factory=dict)
    metrics: dict[str, str] = field(default_factory=dict)  # name -> metrics address
    output: list[str] = field(default_factory=list)  # every line the launcher printed
    log: Path | None = None  # every service's log lines (JSON), as they were written


@contextmanager
def running_system(state_dir: Path, *args: str, **env: str) -> Iterator[System]:
    """The launcher with ``args`` (e.g. --replicas 2 --cluster) and ``env`` added; bots
    move at once unless ``env`` sets their pace."""
    full_env = {**os.environ, "RAFFE_BOT_PACE_MS": "0", **env}
    command = [sys.executable, "-m", "services.launcher", "--free-ports", *args]
    process = subprocess.Popen(
        [*command, "--state-dir", str(state_dir)],
        stdout=subprocess.PIPE,
        stderr=(state_dir / "system.log").open("w"),
        text=True,
        env=full_env,
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if "raffe is running" in line or "exited" in line:
            break
    text = "".join(lines)
    gateway = re.search(r"gateway: (http://\S+)", text)
    redis_url = re.search(r"at (redis://\S+)", text)
    assert gateway and redis_url, text
    found = re.findall(r"^(.+?) at (\S+) \(pid (\d+)\)", text, re.M)
    processes = {name: (address, int(pid)) for name, address, pid in found}
    metrics = dict(re.findall(r"^(.+?) at \S+ \(pid \d+\), metrics at (\S+)", text, re.M))
    engines: dict[str, str] = {}  # replicas (launched --replicas N) as one "a+b" target
    for game, address in re.findall(r"([a-z-]+) engine(?: #\d+)? at (\S+)", text):
        engines[game] = f"{engines[game]}+{address}" if game in engines else address
    projection = re.search(r"projection(?: #\d+)? at (\S+)", text)
    wiring = {
        "RAFFE_REDIS_URL": redis_url.group(1),
        "RAFFE_ENGINES": ",".join(f"{k}={v}" for k, v in engines.items()),
        "RAFFE_PROJECTION": projection.group(1) if projection else "",
    }
    if sentinels := re.search(r"redis sentinels at (\S+)", text):  # launched --sentinel
        wiring["RAFFE_REDIS_SENTINELS"] = sentinels.group(1)
        wiring["RAFFE_REDIS_WAIT_REPLICAS"] = full_env.get("RAFFE_REDIS_WAIT_REPLICAS", "1")
    output = list(lines)
    drain = threading.Thread(target=lambda: output.extend(process.stdout), daemon=True)
    drain.start()
    try:
        env_out = {**full_env, **wiring}
        yield System(
            gateway.group(1),
            redis_url.group(1),
            env_out,
            process,
            processes,
            metrics,
            output,
            state_dir / "system.log",
        )
    except BaseException:
        # Shown by pytest under "Captured stdout" when the test fails: what the launcher
        # saw (exits, restarts) is usually the cause.
        print("the launcher printed:\n" + "".join(output), flush=True)
        raise
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()


def rebuild(system: System) -> str:
    """``python -m services.projection rebuild`` against the system; what it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "services.projection", "rebuild"],
        env=system.env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def wait_over(client: httpx.Client, game_id: str, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = client.get(f"/v1/games/{game_id}")
        # A 503 (Redis failing over, the primary fenced) is asked again, as a client does.
        assert answer.status_code in (200, 503), answer.text
        if answer.status_code == 200 and answer.json()["view"]["status"]["over"]:
            return dict(answer.json())
        time.sleep(0.05)
    raise AssertionError(f"game {game_id} did not end in {timeout}s")


@contextmanager
def extra_gateway(system: System, **env: str) -> Iterator[httpx.Client]:
    """A second gateway process on the running system's Redis and engines, with ``env``
    added (settings under test), and a client of it once it answers."""
    with extra_gateway_process(system, **env) as (client, _):
        yield client


@contextmanager
def extra_gateway_process(
    system: System, **env: str
) -> Iterator[tuple[httpx.Client, subprocess.Popen[bytes]]]:
    """The same, with its process (a test may kill it)."""
    from services.core.local_redis import free_port

    port = free_port()
    full = {**system.env, "RAFFE_PORT": str(port), "RAFFE_METRICS_PORT": "", **env}
    gateway = subprocess.Popen(
        [sys.executable, "-m", "gateway"], env=full, stderr=subprocess.DEVNULL
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            for _ in range(100):
                try:
                    client.get("/healthz")
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            yield client, gateway
    finally:
        gateway.terminate()
        try:
            gateway.wait(timeout=10)
        except subprocess.TimeoutExpired:  # live streams still open: uvicorn waits on them
            gateway.kill()
            gateway.wait(timeout=10)

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx


@dataclass
class System:
    base_url: str
    redis_url: str
    env: dict[str, str]
    process: subprocess.Popen[str]


@contextmanager
def running_system(state_dir: Path, **env: str) -> Iterator[System]:
    full_env = {**os.environ, **env}
    process = subprocess.Popen(
        [sys.executable, "-m", "services.launcher", "--free-ports", "--state-dir", str(state_dir)],
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
    engines = dict(re.findall(r"([a-z-]+) engine at (\S+)", text))
    projection = re.search(r"projection at (\S+)", text)
    wiring = {
        "RAFFE_REDIS_URL": redis_url.group(1),
        "RAFFE_ENGINES": ",".join(f"{k}={v}" for k, v in engines.items()),
        "RAFFE_PROJECTION": projection.group(1) if projection else "",
    }
    drain = threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True)  # type: ignore[union-attr]
    drain.start()
    try:
        yield System(gateway.group(1), redis_url.group(1), {**full_env, **wiring}, process)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def wait_over(client: httpx.Client, game_id: str, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(f"/v1/games/{game_id}").json()
        if body["view"]["status"]["over"]:
            return body
        time.sleep(0.05)
    raise AssertionError(f"game {game_id} did not end in {timeout}s")

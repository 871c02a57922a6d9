"""`make run` starts the embedded Redis, says where it is, and stops cleanly on Ctrl-C."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import redis


def test_launcher_starts_redis_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "services.launcher", "--state-dir", str(tmp_path), "--free-ports"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line)
        if "raffe is running" in line:
            break
    match = re.search(r"at (redis://\S+)", "".join(lines))
    assert match, lines
    client = redis.Redis.from_url(match.group(1))
    assert client.ping()
    assert client.config_get("appendonly")["appendonly"] == "yes"
    assert client.config_get("appendfsync")["appendfsync"] == "always"
    client.close()
    process.send_signal(signal.SIGINT)
    rest, _ = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "raffe stopped" in rest
    assert (tmp_path / "redis").is_dir()
    assert "gateway: http://127.0.0.1:" in "".join(lines)


def test_launcher_refuses_a_taken_port_with_a_hint(tmp_path: Path) -> None:
    """`make run` used to print "raffe is running" and exit 0 when a port was taken."""
    import contextlib
    import socket

    with socket.socket() as held:
        with contextlib.suppress(OSError):  # already taken by someone else: just as good
            held.bind(("127.0.0.1", 8000))
            held.listen()
        done = subprocess.run(
            [sys.executable, "-m", "services.launcher", "--state-dir", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert "port 8000 (gateway) is taken" in done.stderr
    assert "--free-ports" in done.stderr and "raffe is running" not in done.stdout

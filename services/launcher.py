"""``make run``: the whole system as local processes.

Starts an embedded Redis (AOF on, under ``.run/redis``), then every service that exists
in this checkout, waits until each answers, prints where to reach them, and stops all of
it on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from redis import Redis as SyncRedis

from services.core.local_redis import (
    RedisCluster,
    RedisServer,
    find_binary,
    free_port,
    port_free,
    server_version,
)
from services.core.local_sentinel import SentinelGroup
from services.games import GAMES
from services.notifier.push import new_private_key
from services.targets import (
    BOTS_PORT,
    GATEWAY_PORT,
    NOTIFIER_PORT,
    PROJECTION_PORT,
    TOURNAMENT_PORT,
)


@dataclass(frozen=True)
class Service:
    name: str
    module: str
    port: int
    metrics_port: int = 0  # 0: port + 1000 (a worker serving only metrics: on port)
    engine: str = ""  # engines: the game (or "tournament") they serve, for RAFFE_ENGINES
    metrics_only: bool = False  # a worker with no API: its port serves metrics and probes

    @property
    def metrics(self) -> int:
        if self.metrics_only:
            return self.port
        return self.metrics_port or self.port + 1000

    @property
    def argv(self) -> list[str]:
        game = [self.engine] if self.module == "services.engine" else []
        return [sys.executable, "-m", self.module, *game]

    def on(self, port: int, metrics_port: int = 0, name: str = "") -> Service:
        return replace(self, name=name or self.name, port=port, metrics_port=metrics_port)


# An engine per game of services.games; adding another service is one line here.
SERVICES = [
    *(
        Service(f"{name} engine", "services.engine", game.default_port, engine=name)
        for name, game in GAMES.items()
    ),
    Service("tournament engine", "services.tournament", TOURNAMENT_PORT, engine="tournament"),
    Service("projection", "services.projection", PROJECTION_PORT),
    Service("bot runner", "services.bots", BOTS_PORT, metrics_only=True),
    Service("notifier", "services.notifier", NOTIFIER_PORT, metrics_only=True),
    Service("gateway", "gateway", GATEWAY_PORT),
]


def available(service: Service) -> bool:
    try:
        return importlib.util.find_spec(service.module + ".__main__") is not None
    except ModuleNotFoundError:
        return False


def start_redis(state_dir: Path, port: int | None, restore: Path | None = None) -> RedisServer:
    """The embedded Redis on its AOF; ``restore``: first load that backup (an RDB from
    ``python -m services.backup``) into this fresh state directory, then keep it on the
    AOF like any other start (docs/operations.md)."""
    directory = state_dir / "redis"
    directory.mkdir(parents=True, exist_ok=True)
    if restore is not None:
        if any(directory.iterdir()):
            raise SystemExit(f"--restore needs a fresh state directory; {directory} has data")
        shutil.copyfile(restore, directory / "dump.rdb")
    fsync = os.environ.get("RAFFE_APPENDFSYNC", "always")
    server = RedisServer(
        binary=find_binary(),
        port=port or free_port(),
        appendonly=restore is None,  # a restore loads the RDB first: AOF would win
        appendfsync=fsync,
        directory=str(directory),
    ).start()
    if restore is not None:
        keep_on_aof(server)
    return server


def keep_on_aof(server: RedisServer, timeout: float = 120.0) -> None:
    """Switch a Redis that loaded an RDB to its AOF, written from what it holds, and wait
    for the AOF to be complete: from then on it starts (and restarts) on it."""
    client = SyncRedis.from_url(server.url)
    client.config_set("appendonly", "yes")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = client.info("persistence")
        if (
            info.get("aof_enabled") == 1
            and not info.get("aof_rewrite_in_progress")
            and not (info.get("aof_rewrite_scheduled"))
        ):
            break
        time.sleep(0.1)
    else:
        raise SystemExit("the restored data did not reach the AOF in time")
    client.close()
    server.appendonly = True  # a restart now loads the AOF


Store = RedisServer | RedisCluster | SentinelGroup


def start_store(args: argparse.Namespace) -> tuple[Store, dict[str, str]]:
    """The embedded Redis (or, with --cluster, a 3-primary cluster; with --sentinel a
    primary, two replicas and three sentinels) and how to reach it."""
    if args.sentinel:
        return start_sentinel_group(Path(args.state_dir))
    if args.cluster or args.cluster_replicas:
        cluster = RedisCluster(replicas=args.cluster_replicas).start()
        each = f", each with {args.cluster_replicas} replica(s)" if args.cluster_replicas else ""
        print(f"redis cluster of 3 primaries{each} at {cluster.url}", flush=True)
        for node in cluster.nodes:
            print(f"redis cluster node at {node.url} (pid {pid_of(node)})", flush=True)
        env = {"RAFFE_REDIS_URL": cluster.url, "RAFFE_REDIS_CLUSTER": "1"}
        if args.cluster_replicas:
            env["RAFFE_REDIS_WAIT_REPLICAS"] = os.environ.get("RAFFE_REDIS_WAIT_REPLICAS", "1")
        return cluster, env
    restore = Path(args.restore) if args.restore else None
    redis = start_redis(Path(args.state_dir), args.redis_port, restore)
    print(
        f"redis {server_version(redis.binary)} (embedded, AOF appendfsync="
        f"{redis.appendfsync}) at {redis.url} (pid {redis.process.pid if redis.process else 0})",
        flush=True,
    )
    return redis, {"RAFFE_REDIS_URL": redis.url}


def start_sentinel_group(state_dir: Path) -> tuple[SentinelGroup, dict[str, str]]:
    """Appends wait for one replica (RAFFE_REDIS_WAIT_REPLICAS, unless set already)."""
    directory = state_dir / "redis-sentinel"
    if directory.exists() and any(directory.iterdir()):
        # The sentinels' files name the ports of an earlier start: a local group starts
        # afresh each time (docs/operations.md); plain `make run` keeps its data.
        print(f"starting a fresh Sentinel group in {directory}", flush=True)
        shutil.rmtree(directory)
    fsync = os.environ.get("RAFFE_APPENDFSYNC", "always")
    group = SentinelGroup(directory, appendfsync=fsync).start()
    for i, node in enumerate(group.nodes):
        role = "primary" if i == 0 else "replica"
        print(f"redis {role} at {node.url} (pid {pid_of(node)})", flush=True)
    for node in group.sentinels:
        print(f"redis sentinel at 127.0.0.1:{node.port} (pid {pid_of(node)})", flush=True)
    print(f"redis sentinels at {group.sentinel_addresses}", flush=True)
    env = {
        "RAFFE_REDIS_URL": group.url,
        "RAFFE_REDIS_SENTINELS": group.sentinel_addresses,
        "RAFFE_REDIS_WAIT_REPLICAS": os.environ.get("RAFFE_REDIS_WAIT_REPLICAS", "1"),
    }
    return group, env


def pid_of(node: RedisServer) -> int:
    return node.process.pid if node.process else 0


def watch_store(store: Store, exited_at: dict[int, float]) -> None:
    """Bring back a Redis that exited, as a StatefulSet would: on the same port and AOF
    (appendfsync always: nothing acknowledged is lost); services reconnect by
    themselves. A replicated node (Sentinel, a cluster with replicas) comes back only
    after REPLICA_RESTART_S, as a replaced node would, so a replica takes over first
    (back at once, the old primary would win the race and no failover be seen); it then
    rejoins as a replica."""
    if isinstance(store, RedisServer) and store.process and store.process.poll() is not None:
        print("redis exited; restarting it", flush=True)
        store.process = None
        store.start()
        print(f"redis restarted (pid {pid_of(store)})", flush=True)
    replicated = [*store.nodes, *store.sentinels] if isinstance(store, SentinelGroup) else []
    if isinstance(store, RedisCluster) and store.replicas:
        replicated = store.nodes
    for node in replicated:
        if node.process is None or node.process.poll() is None:
            continue
        first = exited_at.setdefault(node.port, time.monotonic())
        if time.monotonic() - first < REPLICA_RESTART_S:
            continue
        del exited_at[node.port]
        node.process = None
        node.start()
        print(f"redis node on port {node.port} restarted (pid {pid_of(node)})", flush=True)


REPLICA_RESTART_S = 5.0


def wait_port(port: int, process: subprocess.Popen[bytes], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def replicated(services: list[Service], replicas: int) -> list[Service]:
    """``replicas`` of every service but the gateway, each on the next port."""
    if replicas <= 1:
        return services
    return [
        s.on(s.port + 100 * i, name=f"{s.name} #{i + 1}")
        for s in services
        for i in range(1 if s.module == "gateway" else replicas)
    ]


def with_free_ports(services: list[Service]) -> list[Service]:
    """The same services on free ports, metrics included and no port given twice (tests,
    or a machine where the defaults are taken)."""
    taken: set[int] = set()

    def fresh() -> int:
        for _ in range(100):
            port = free_port()
            if port not in taken:
                taken.add(port)
                return port
        raise RuntimeError("no free port")

    return [s.on(fresh(), fresh()) for s in services]


def vapid_env(state_dir: Path) -> dict[str, str]:
    """The web push key (docs/notifications.md): the environment's, else one made on the
    first start and kept in the state directory, so browsers' subscriptions outlive a
    restart."""
    if os.environ.get("RAFFE_VAPID_PRIVATE_KEY"):
        return {}
    path = state_dir / "vapid.key"
    if not path.exists():
        state_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(new_private_key())
        path.chmod(0o600)
    return {"RAFFE_VAPID_PRIVATE_KEY": path.read_text().strip()}


def wiring(services: list[Service]) -> dict[str, str]:
    """Tell every process where the engines and the projection listen (replicas of an
    engine as one "a+b" target, balanced per call)."""
    engines: dict[str, list[str]] = {}
    for s in services:
        if s.engine:
            engines.setdefault(s.engine, []).append(f"127.0.0.1:{s.port}")
    env = {"RAFFE_ENGINES": ",".join(f"{k}={'+'.join(v)}" for k, v in engines.items())}
    projection = next((s for s in services if s.name.startswith("projection")), None)
    if projection:
        env["RAFFE_PROJECTION"] = f"127.0.0.1:{projection.port}"
    gateway = next((s for s in services if s.module == "gateway"), None)
    if gateway and "RAFFE_PUBLIC_URL" not in os.environ:  # the notifier's links to tables
        env["RAFFE_PUBLIC_URL"] = f"http://127.0.0.1:{gateway.port}"
    return env


def service_env(service: Service, env: dict[str, str]) -> dict[str, str]:
    return {**env, "RAFFE_PORT": str(service.port), "RAFFE_METRICS_PORT": str(service.metrics)}


def start_service(service: Service, env: dict[str, str]) -> subprocess.Popen[bytes]:
    # Own session, so Ctrl-C reaches only the launcher, which stops services in order.
    process = subprocess.Popen(service.argv, env=service_env(service, env), start_new_session=True)
    if not wait_port(service.port, process):
        raise RuntimeError(f"{service.name} did not start on port {service.port}")
    return process


def restart(service: Service, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``service`` started again; if it does not come up, the failed process, left for the
    supervising loop to count and retry, so one service's failure never stops the rest."""
    process = subprocess.Popen(service.argv, env=service_env(service, env), start_new_session=True)
    if wait_port(service.port, process):
        print(f"{service.name} restarted (pid {process.pid})", flush=True)
    else:
        process.kill()
        process.wait()
        print(f"{service.name} did not come up on port {service.port}", flush=True)
    return process


def stop_all(
    processes: Sequence[subprocess.Popen[Any]],
    grace_s: float = 15.0,
    sig: signal.Signals = signal.SIGTERM,
) -> None:
    """``sig`` to each, then SIGKILL to any still running ``grace_s`` later: a service
    whose event loop hangs never runs its SIGTERM handler, and waiting for it alone
    left it (and every service after it, and Redis) running after the launcher."""
    for process in processes:
        process.send_signal(sig)
    deadline = time.monotonic() + grace_s
    for process in processes:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            print(f"pid {process.pid} did not stop in {grace_s:.0f} s; killed", flush=True)
            process.kill()
            process.wait()


def ready_line(gateway: Service | None) -> str:
    """The last line printed at start, plainly: where to open the table."""
    if gateway is None:
        return "raffe is running (no gateway); Ctrl-C stops it"
    url = f"http://127.0.0.1:{gateway.port}"
    return f"raffe is running: open {url} in a browser (API docs: {url}/docs); Ctrl-C stops it"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--state-dir", default=".run", help="where Redis keeps its AOF")
    parser.add_argument("--redis-port", type=int, default=None, help="default: a free port")
    parser.add_argument("--free-ports", action="store_true", help="every service on a free port")
    parser.add_argument("--replicas", type=int, default=1, help="of every service but the gateway")
    parser.add_argument("--cluster", action="store_true", help="a local 3-primary Redis Cluster")
    parser.add_argument(
        "--sentinel",
        action="store_true",
        help="a replicated Redis: a primary, 2 replicas, 3 sentinels; appends wait for 1 replica",
    )
    parser.add_argument(
        "--cluster-replicas",
        type=int,
        default=0,
        help="a local Redis Cluster with this many replicas per primary; appends wait for 1",
    )
    parser.add_argument(
        "--restore", default="", help="start from this backup (python -m services.backup)"
    )
    args = parser.parse_args(argv)
    services = replicated([s for s in SERVICES if available(s)], args.replicas)
    if args.free_ports:
        services = with_free_ports(services)
    taken = [(s, p) for s in services for p in {s.port, s.metrics} if not port_free(p)]
    if taken:
        for service, port in taken:
            print(f"port {port} ({service.name}) is taken", file=sys.stderr)
        print(
            "raffe is not running: another Raffe, or another program, uses these ports. "
            "Stop it, or start on free ports: .venv/bin/python -m services.launcher --free-ports",
            file=sys.stderr,
        )
        return 1

    stop = False

    def on_signal(signum: int, frame: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    redis, redis_env = start_store(args)
    env = {**os.environ, **redis_env, **wiring(services), **vapid_env(Path(args.state_dir))}
    children: list[tuple[Service, subprocess.Popen[bytes]]] = []
    try:
        for service in services:
            children.append((service, start_service(service, env)))
            pid = children[-1][1].pid
            print(
                f"{service.name} at 127.0.0.1:{service.port} (pid {pid}), "
                f"metrics at 127.0.0.1:{service.metrics}",
                flush=True,
            )
        gateway = next((s for s, _ in children if s.module == "gateway"), None)
        if gateway:
            print(f"gateway: http://127.0.0.1:{gateway.port}  docs: /docs", flush=True)
        print(ready_line(gateway), flush=True)
        restarts: dict[str, list[float]] = {}
        exited_at: dict[int, float] = {}
        while not stop:
            watch_store(redis, exited_at)
            for i, (service, process) in enumerate(children):
                if process.poll() is None:
                    continue
                print(f"{service.name} exited with {process.returncode}", flush=True)
                recent = [t for t in restarts.get(service.name, []) if time.monotonic() - t < 60]
                if len(recent) >= 3:  # crashing at once every time: say so and stop
                    print(f"{service.name} keeps exiting; stopping", flush=True)
                    stop = True
                    break
                restarts[service.name] = [*recent, time.monotonic()]
                children[i] = (service, restart(service, env))
            time.sleep(0.2)
    finally:
        stop_all([process for _, process in reversed(children)])
        redis.stop()
        print("raffe stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

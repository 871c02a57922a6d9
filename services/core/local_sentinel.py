"""A local replicated Redis under Sentinel: one primary, its replicas and three
sentinels, all the same ``redis-server`` binary (``--sentinel``), each with its own
directory and AOF. ``make run`` starts it with ``--sentinel``; the failover tests kill and
freeze its primary (docs/operations.md, "Replicated Redis").

Sentinels decide a failover by a quorum of two, so one frozen or dead sentinel decides
nothing alone; they promote the replica with the most recent copy of the primary, which
holds every append a replica acknowledged (WAIT, services.core.eventstore.replication).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redis import Redis as SyncRedis

from services.core.local_redis import RedisServer, find_binary, free_port

SERVICE = "raffe"  # the name sentinels know the primary by (RAFFE_REDIS_SERVICE)


@dataclass
class SentinelNode(RedisServer):
    """One ``redis-server --sentinel``: its config file is its state (sentinels rewrite
    it as they learn the topology), so a restart keeps what it knew."""

    primary_port: int = 0
    down_after_ms: int = 1000

    def args(self) -> list[str]:
        conf = Path(self.directory, "sentinel.conf")
        if not conf.exists():
            conf.write_text(
                "\n".join(
                    [
                        f"port {self.port}",
                        "bind 127.0.0.1",
                        "protected-mode no",
                        f"dir {self.directory}",
                        "logfile sentinel.log",
                        f"sentinel monitor {SERVICE} 127.0.0.1 {self.primary_port} 2",
                        f"sentinel down-after-milliseconds {SERVICE} {self.down_after_ms}",
                        f"sentinel failover-timeout {SERVICE} {max(3000, 3 * self.down_after_ms)}",
                        f"sentinel parallel-syncs {SERVICE} 1",
                        "",
                    ]
                )
            )
        return [self.binary, str(conf), "--sentinel"]


@dataclass
class SentinelGroup:
    """A primary with ``replicas`` replicas and three sentinels on loopback, under
    ``directory`` (one folder per node: node0 is the first primary)."""

    directory: Path
    replicas: int = 2
    appendfsync: str = "always"
    down_after_ms: int = 1000
    binary: str = field(default_factory=find_binary)
    nodes: list[RedisServer] = field(default_factory=list)
    sentinels: list[SentinelNode] = field(default_factory=list)

    @property
    def sentinel_addresses(self) -> str:
        """RAFFE_REDIS_SENTINELS: how every service finds the primary."""
        return ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)

    @property
    def url(self) -> str:
        """The first primary's URL (it changes on failover: clients ask the sentinels)."""
        return self.nodes[0].url

    def start(self, timeout: float = 30.0) -> SentinelGroup:
        primary = self._node(0).start()
        self.nodes.append(primary)
        for i in range(1, self.replicas + 1):
            self.nodes.append(self._node(i, replica_of=primary.port).start())
        for i in range(3):
            directory = self.directory / f"sentinel{i}"
            directory.mkdir(parents=True, exist_ok=True)
            node = SentinelNode(
                binary=self.binary,
                port=free_port(),
                directory=str(directory),
                primary_port=primary.port,
                down_after_ms=self.down_after_ms,
            )
            node.start()
            self.sentinels.append(node)
        self.wait_synced(timeout)
        return self

    def _node(self, index: int, replica_of: int = 0) -> RedisServer:
        directory = self.directory / f"node{index}"
        directory.mkdir(parents=True, exist_ok=True)
        node = ReplicaNode(
            binary=self.binary,
            port=free_port(),
            appendonly=True,
            appendfsync=self.appendfsync,
            directory=str(directory),
            replica_of=replica_of,
        )
        return node

    def wait_synced(self, timeout: float) -> None:
        """Until the primary counts every replica online and every sentinel knows them."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                if self._synced():
                    return
            time.sleep(0.1)
        raise RuntimeError("the local Sentinel group did not come up in time")

    def _synced(self) -> bool:
        primary = SyncRedis(port=self.primary_port())
        info = primary.info("replication")
        primary.close()
        online = sum(
            1 for k, v in info.items() if k.startswith("slave") and v.get("state") == "online"
        )
        if online < self.replicas:
            return False
        for s in self.sentinels:
            client = SyncRedis(port=s.port)
            known = client.sentinel_slaves(SERVICE)
            client.close()
            if len(known) < self.replicas:
                return False
        return True

    def primary_port(self) -> int:
        """The primary's port as the sentinels see it now."""
        for s in self.sentinels:
            with contextlib.suppress(Exception):
                client = SyncRedis(port=s.port, socket_timeout=1)
                address: Any = client.sentinel_get_master_addr_by_name(SERVICE)
                client.close()
                return int(address[1])
        raise RuntimeError("no sentinel answered")

    def node_on(self, port: int) -> RedisServer:
        return next(n for n in self.nodes if n.port == port)

    def stop(self) -> None:
        for node in [*self.sentinels, *self.nodes]:
            node.stop()


@dataclass
class ReplicaNode(RedisServer):
    """A data node: a replica of ``replica_of`` when that is set (else a primary)."""

    replica_of: int = 0

    def args(self) -> list[str]:
        args = super().args()
        # A replica's first copy starts at once, not after diskless sync's 5 s wait for
        # more replicas to share it.
        args += ["--repl-diskless-sync-delay", "0"]
        # A primary with no replica in touch for 5 s takes no writes: a frozen primary
        # thawed after the sentinels replaced it (its replicas follow the new one) is
        # refused what it would otherwise take and lose, and nobody reads such writes.
        args += ["--min-replicas-to-write", "1", "--min-replicas-max-lag", "5"]
        if self.replica_of:
            args += ["--replicaof", "127.0.0.1", str(self.replica_of)]
        return args

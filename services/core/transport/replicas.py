"""A channel per engine replica, so the command lanes can be placed on every replica.

A lane (services.core.transport.lanes) is one long ExecuteMany call: it stays on the
replica where it opened. Opened through the shared round-robin channel, lanes land
where the balancer's turn falls (a turn shared with every unary call), and there were 4
of them: a fifth replica and beyond never got a command, and a lane replaced alone (its
call ended) could join another on the same replica. With a channel per replica, lane
``i`` opens on replica ``i mod n``, and there are at least as many lanes as replicas
(what bench.scaleout measured either way: docs/performance.md).

A game has a replica of its own (``placed``, rendezvous hashing of the game id over the
replicas that answer), where it is created (the client chooses its id) and where each
gateway's lanes start it: gateways side by side send a
game's commands to the same replica, whose cache then holds it current, and a burst of
one game's placed commands from both (a tournament's registrations) queues there instead
of racing from two replicas to the same stream (503 ``contended``). A replica lost moves
only its own games. (Unary calls stay round robin per call: placing the bot runner's
calls by game was measured slower under CPU quotas, docs/performance.md.)

The replicas are the addresses of an ``ipv4:a,b`` target, or those a ``dns:///host:port``
target resolves to (a Kubernetes headless Service), resolved again every ``refresh_s``.
A plain ``host:port`` target has no replicas listed here: its lanes use the shared
channel as before. Replicas whose channel is failing are left out, so a lane that ends
with its replica reopens on one that answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass

import grpc

from raffe.v1 import common_pb2_grpc

REFRESH_S = 5.0  # a dns:/// target is resolved again this often
Options = Sequence[tuple[str, object]]


def address(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def rank(address: str, game_id: str) -> bytes:
    """A replica's rank for a game, the same in every process (unlike ``hash``)."""
    return hashlib.blake2b(f"{address}/{game_id}".encode(), digest_size=8).digest()


def channel_target(address: str) -> str:
    """A single-address gRPC target for ``address`` ("ip:port" or "[ipv6]:port")."""
    return f"ipv6:{address}" if address.startswith("[") else f"ipv4:{address}"


@dataclass(eq=False)
class Replica:
    address: str
    channel: grpc.aio.Channel
    stub: common_pb2_grpc.EngineStub

    def failing(self) -> bool:
        # Asking also makes an idle channel connect again after a failure.
        state = self.channel.get_state(try_to_connect=True)
        return state in (
            grpc.ChannelConnectivity.TRANSIENT_FAILURE,
            grpc.ChannelConnectivity.SHUTDOWN,
        )


class ReplicaChannels:
    def __init__(
        self,
        options: Options,
        static: Sequence[str] = (),
        host: str = "",
        port: int = 0,
        refresh_s: float = REFRESH_S,
    ) -> None:
        self.options, self.host, self.port, self.refresh_s = options, host, port, refresh_s
        self.replicas: dict[str, Replica] = {}
        self._resolved_at = -float("inf")
        self._resolving: asyncio.Task[None] | None = None
        self._set(list(static))

    @classmethod
    def of(cls, target: str, options: Options) -> ReplicaChannels | None:
        """The replicas of ``target``, or None when it names a single address."""
        if target.startswith("ipv4:") and "," in target:
            return cls(options, static=target.removeprefix("ipv4:").split(","))
        if target.startswith("dns:"):
            name = target.removeprefix("dns:").lstrip("/")
            name = name.split("/", 1)[1] if "/" in name else name  # dns://authority/name
            host, colon, port = name.rpartition(":")
            if not colon:  # no port: gRPC's default for dns targets
                host, port = name, "443"
            return cls(options, host=host, port=int(port))
        return None

    def live(self) -> list[Replica]:
        """The replicas not failing, in a stable order (so lane i keeps to one replica)."""
        self._refresh()
        return [r for _, r in sorted(self.replicas.items()) if not r.failing()]

    def placed(self, game_id: str) -> Replica | None:
        """The game's replica: of those not failing, the one ranking it highest."""
        live = self.live()
        if len(live) < 2:
            return live[0] if live else None
        return max(live, key=lambda r: rank(r.address, game_id))

    async def close(self) -> None:
        if self._resolving is not None:
            self._resolving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._resolving
        replicas, self.replicas = self.replicas, {}
        await asyncio.gather(*(r.channel.close() for r in replicas.values()))

    def _set(self, addresses: list[str]) -> None:
        for found in addresses:
            if found not in self.replicas:
                channel = grpc.aio.insecure_channel(channel_target(found), options=self.options)
                channel.get_state(try_to_connect=True)
                stub = common_pb2_grpc.EngineStub(channel)  # type: ignore[no-untyped-call]
                self.replicas[found] = Replica(found, channel, stub)
        for gone in set(self.replicas) - set(addresses):
            # Its lanes end with the channel; what they had not answered goes out again.
            closing = self.replicas.pop(gone).channel.close(grace=5.0)
            asyncio.get_running_loop().create_task(closing)

    def _refresh(self) -> None:
        due = time.monotonic() - self._resolved_at >= self.refresh_s
        if self.host and due and self._resolving is None:
            self._resolved_at = time.monotonic()
            self._resolving = asyncio.get_running_loop().create_task(self._resolve())

    async def _resolve(self) -> None:
        try:
            found = await asyncio.get_running_loop().getaddrinfo(
                self.host, self.port, type=socket.SOCK_STREAM
            )
            addresses = sorted({address(str(a[4][0]), int(a[4][1])) for a in found})
            if addresses:
                self._set(addresses)
        except OSError:
            pass  # the name did not resolve this time: keep the replicas known
        finally:
            self._resolving = None

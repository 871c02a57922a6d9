"""Every unary call about one game goes to one engine replica, the same from every client.

Each replica caches the games it serves; a call landing on a replica whose copy is
behind costs it a read and a fold first. With gRPC's round robin, a bot's two calls of
a move (GetView, then Execute) landed on different replicas half the time at 2
replicas and three times in four at 4 (bench.scaleout: tournaments 1.78x / 2.72x).

Which replica: rendezvous hashing (highest random weight) of the game id over the
replicas' addresses, so gateways, bot runners and tournament runners agree without
talking, and a replica joining or leaving moves only its own share of the games. A game
leaves its replica only while that one is unreachable or far busier (calls in flight
from this client) than the least busy, by the same rule as the command lanes
(services.core.engine_stream.near_enough).

The replicas are the addresses of an ``ipv4:a,b`` target, or those a ``dns:///host:port``
target resolves to (a Kubernetes headless Service), resolved again every ``refresh_s``.
A plain ``host:port`` target is one replica: no routing. A call that finds its replica
unreachable (UNAVAILABLE without the engine's own error details) goes to the next in
the game's order; that replica is skipped for ``DOWN_S``. Safe: commands carry ids the
engine deduplicates, and the other calls only read.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import grpc

from raffe.v1 import common_pb2_grpc
from services.core.engine_stream import near_enough
from services.core.grpc_errors import from_call_error

R = TypeVar("R")
DOWN_S = 1.0  # a replica found unreachable is skipped this long
REFRESH_S = 5.0  # a dns:/// target is resolved again this often
Options = Sequence[tuple[str, object]]


class NoReplica(Exception):
    """No replica is known (yet), or none could be reached."""


def weight(game_id: str, address: str) -> int:
    """The game's weight on a replica: the highest weight is the game's replica."""
    digest = hashlib.blake2b(f"{address}/{game_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def address(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def channel_target(address: str) -> str:
    """A single-address gRPC target for ``address`` ("ip:port" or "[ipv6]:port")."""
    return f"ipv6:{address}" if address.startswith("[") else f"ipv4:{address}"


def unreachable(error: grpc.aio.AioRpcError) -> bool:
    """The replica did not answer (the engine's own UNAVAILABLE, Redis being down, carries
    details and would be the same on every replica)."""
    return error.code() == grpc.StatusCode.UNAVAILABLE and from_call_error(error) is None


@dataclass(eq=False)
class Replica:
    address: str
    channel: grpc.aio.Channel
    stub: common_pb2_grpc.EngineStub
    inflight: int = 0
    down_until: float = 0.0

    def up(self, now: float) -> bool:
        failing = self.channel.get_state() == grpc.ChannelConnectivity.TRANSIENT_FAILURE
        return now >= self.down_until and not failing


@dataclass
class Replicas:
    """The replicas behind one engine target, and which one serves a game."""

    options: Options
    static: list[str] = field(default_factory=list)
    host: str = ""  # a dns:/// target's name and port, resolved again every refresh_s
    port: int = 0
    refresh_s: float = REFRESH_S

    def __post_init__(self) -> None:
        self.replicas: dict[str, Replica] = {}
        self._resolved_at = -float("inf")
        self._resolving: asyncio.Task[None] | None = None
        self._set(self.static)

    @classmethod
    def of(cls, target: str, options: Options) -> Replicas | None:
        """The replicas of ``target``, or None when it names a single address."""
        if target.startswith("ipv4:") and "," in target:
            return cls(options, static=target.removeprefix("ipv4:").split(","))
        if target.startswith("dns:"):
            name = target.removeprefix("dns:").lstrip("/")
            name = name.split("/", 1)[1] if "/" in name else name  # dns://authority/name
            host, _, port = name.rpartition(":")
            return cls(options, host=host, port=int(port or 443))
        return None

    def ranked(self, game_id: str) -> list[Replica]:
        """The replicas that are up, the game's own first."""
        self._refresh()
        now = time.monotonic()
        up = [r for r in self.replicas.values() if r.up(now)]
        return sorted(up, key=lambda r: weight(game_id, r.address), reverse=True)

    async def call(
        self, game_id: str, call: Callable[[common_pb2_grpc.EngineStub], Awaitable[R]]
    ) -> R:
        """``call`` on the game's replica (or the next, while it is unreachable or far
        busier); NoReplica when none could take it (the caller's channel then does)."""
        tried: set[str] = set()
        while replica := self._pick(game_id, tried):
            tried.add(replica.address)
            replica.inflight += 1
            try:
                return await call(replica.stub)
            except grpc.aio.AioRpcError as error:
                if not unreachable(error):
                    raise
                replica.down_until = time.monotonic() + DOWN_S
            finally:
                replica.inflight -= 1
        raise NoReplica(game_id)

    def _pick(self, game_id: str, tried: set[str]) -> Replica | None:
        ranked = [r for r in self.ranked(game_id) if r.address not in tried]
        if not ranked:
            return None
        least = min(r.inflight for r in ranked)
        return next(r for r in ranked if near_enough(r.inflight, least))

    async def close(self) -> None:
        if self._resolving is not None:
            self._resolving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._resolving
        replicas, self.replicas = self.replicas, {}
        await asyncio.gather(*(r.channel.close() for r in replicas.values()))

    def _set(self, addresses: list[str]) -> None:
        for address in addresses:
            if address not in self.replicas:
                channel = grpc.aio.insecure_channel(channel_target(address), options=self.options)
                channel.get_state(try_to_connect=True)
                stub = common_pb2_grpc.EngineStub(channel)  # type: ignore[no-untyped-call]
                self.replicas[address] = Replica(address, channel, stub)
        for address in set(self.replicas) - set(addresses):
            gone = self.replicas.pop(address)
            # Calls in flight on it finish (or fail over) within the grace.
            asyncio.get_running_loop().create_task(gone.channel.close(grace=5.0))

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

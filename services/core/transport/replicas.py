"""A channel per engine replica, so the command lanes can be placed on every replica.

A lane (services.core.transport.lanes) is one long ExecuteBatches call: it stays on the
replica where it opened. Opened through the shared round-robin channel, lanes land
where the balancer's turn falls (a turn shared with every unary call), and there were 4
of them: a fifth replica and beyond never got a command, and a lane replaced alone (its
call ended) could join another on the same replica. With a channel per replica, lane
``i`` opens on replica ``i mod n``, and there are at least as many lanes as replicas
(bench.scaleout measured it either way).

A game has a replica of its own (``placed``), where it is created (the client chooses its
id), where each gateway's lanes start it and where every client's unary calls about it
go (the runners': bots, tournaments, timers): clients side by side send a
game's commands to the same replica, whose cache then holds it current, and a burst of
one game's placed commands from both (a tournament's registrations) queues there instead
of racing from two replicas to the same stream (503 ``contended``). A replica lost moves
only its own games.

The replicas are the addresses of an ``ipv4:a,b`` target, or those a ``dns:///host:port``
target resolves to (a Kubernetes headless Service), resolved again every ``refresh_s``.
A plain ``host:port`` target has no replicas listed here: its lanes use the shared
channel as before. Replicas whose channel is failing are left out, so a lane that ends
with its replica reopens on one that answers.

Which replica is a game's (``home``, a function of the id and the replicas known, so
every process agrees): rendezvous hashing of the id, except that the tables of a group
(ids ``<group>-t<n>``, a tournament round's) take the replicas in turn, and that a new
game's id is chosen so that this client's creations take the replicas in turn
(``new_game_id``). Hashing alone leaves some replicas more games than others (64 over 4:
typically 12 on the least busy and 20 on the busiest), and a tournament round is as slow
as its busiest replica. A game whose replica is failing goes to the highest ranked of
those that answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import socket
import time
import uuid
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


TABLE = re.compile(r"^(?P<group>.+)-t(?P<index>\d+)$")
ID_TRIES = 64  # fresh ids tried for one that lands on the wanted replica (about n needed)


def home(addresses: Sequence[str], game_id: str) -> str:
    """The address of ``addresses`` (not empty) a game belongs on, the same everywhere."""
    table = TABLE.match(game_id)
    if table is None:
        return max(addresses, key=lambda a: rank(a, game_id))
    # A group's tables in turn, from an order of the replicas the group's own.
    order = sorted(addresses, key=lambda a: rank(a, table["group"]))
    return order[int(table["index"]) % len(order)]


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
        self._turn = 0  # the replica this client's next new game goes to (new_game_id)
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
        """The game's replica, of those not failing."""
        live = self.live()
        if len(live) < 2:
            return live[0] if live else None
        return self._placed_among(live, game_id)

    def new_game_id(self) -> str:
        """A fresh game id placed on the next replica in this client's turn."""
        live = self.live()  # once: asking each channel's state per try was the cost
        if len(live) < 2:
            return uuid.uuid4().hex
        self._turn = (self._turn + 1) % len(live)
        wanted = live[self._turn]
        for _ in range(ID_TRIES):
            game_id = uuid.uuid4().hex
            if self._placed_among(live, game_id) is wanted:
                break
        return game_id

    def _placed_among(self, live: list[Replica], game_id: str) -> Replica:
        """Its ``home`` among every replica known when that one is in ``live``, else the
        one of ``live`` ranking it highest (so a replica lost moves only its games)."""
        wanted = self.replicas[home(sorted(self.replicas), game_id)]
        if wanted in live:
            return wanted
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

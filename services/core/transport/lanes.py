"""Executes multiplexed over a few long-lived ExecuteBatches calls: the gateway's command
path. A message on an open stream costs the client and the engine much less CPU than a
unary call (docs/decisions, "command fast paths"), and commands are most of what
a busy gateway sends. The commands queued on a lane while its last message was written
go out in one message, and the engine answers those ready together in one.

Each lane is one call; commands go round robin over the lanes and answers are matched
by call number. A lane whose call ends (an engine restarting, the network) is replaced,
and the commands it had not answered are sent again on another lane, backing off from
50 ms to 1 s, until they are answered or their time is up: safe, as every command
carries an id the engine deduplicates (a command that had gone through is answered as a
duplicate). Lanes are replaced every ``lane_seconds`` (5 s) too, so new lanes reach
replicas that came up since, and a lane on which a command timed out is replaced at
once. When the target lists several replicas, lane i opens on replica i mod n through a
channel of its own (services.core.transport.replicas); otherwise the shared channel's
round robin places it. A command goes on the lane with the fewest commands
unanswered: lanes land unevenly on replicas, and a replica under load answers slower
(plain round robin scaled worse under bench.scaleout's quotas).

A game's commands keep to the replica its last command went to, on the least busy of
that replica's lanes, while that lane is not much busier than the least busy one of all,
and always to the lane that still holds an unanswered command of the game (so a game's
commands sent together arrive in order): each replica caches the games it serves, and a
command landing on a replica whose copy of the game is behind costs it a read and a fold
first. Which of the
replica's lanes carries it does not matter to the cache, and kept to one lane, games
that shared it queued their answers behind each other's writes while other lanes idled.
A game's first lane is one on its own replica (``ReplicaChannels.placed``), the same in
every gateway.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import grpc
from google.rpc import status_pb2

from raffe.v1 import common_pb2, common_pb2_grpc
from services.core.grpc_errors import EngineUnavailable, status_error
from services.core.queues import together
from services.core.transport.replicas import Replica, ReplicaChannels

FIRST_BACKOFF_S, MAX_BACKOFF_S = 0.05, 1.0
MAX_HOMES = 100_000  # games whose lane is remembered (forgotten all at once past this)


def near_enough(home: int, least: int) -> bool:
    """Whether a lane with ``home`` commands unanswered may keep its games when another
    has ``least``. Balance needs only that no replica waits idle while others queue, so a
    game leaves its lane only for one far less busy (a few more is noise, or a burst)."""
    return home <= 2 * least + 4


@dataclass
class Sent:
    """A command on its way: what to send again if its lane ends unanswered."""

    request: common_pb2.ExecuteRequest
    answer: asyncio.Future[common_pb2.ExecuteAnswer]
    attempts: int = 1
    lane: Lane | None = None  # the lane it was last sent on


@dataclass(eq=False)
class Lane:
    """One ExecuteBatches call: a queue feeding its requests, a task reading its answers."""

    stub: common_pb2_grpc.EngineStub
    ended: Callable[[Lane], None]
    replica: str = ""  # its replica's address; "" on the shared channel
    pending: dict[int, Sent] = field(default_factory=dict)
    open: bool = True
    born: float = field(default_factory=time.monotonic)
    # ExecuteBatches, or for an engine from before it (which refused it: ``refused``)
    # ExecuteMany, one command a message.
    batched: bool = True
    refused: bool = False

    def __post_init__(self) -> None:
        self._queue: asyncio.Queue[common_pb2.ExecuteCall | None] = asyncio.Queue()
        call = self.stub.ExecuteBatches if self.batched else self.stub.ExecuteMany
        self._call = call(self._outgoing())
        self._reader = asyncio.create_task(self._read())

    def send(self, number: int, sent: Sent) -> None:
        sent.lane = self
        self.pending[number] = sent
        self._queue.put_nowait(common_pb2.ExecuteCall(call=number, request=sent.request))

    def holds(self, game_id: str) -> bool:
        """Whether a command of the game is unanswered here: the game stays (sent on
        another replica too, its commands would race each other to the same stream: a
        burst of one tournament's registrations answered 503 ``contended``)."""
        return self.open and any(
            s.request.command.game_id == game_id for s in self.pending.values()
        )

    def retire(self) -> None:
        """No new commands; those sent are still answered, then the engine ends the call."""
        if self.open:
            self.open = False
            self._queue.put_nowait(None)

    async def stop(self) -> None:
        self.retire()
        self._call.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)

    async def _outgoing(self) -> AsyncIterator[common_pb2.ExecuteCalls | common_pb2.ExecuteCall]:
        """The calls queued since the last message, in one: gRPC writes one message at a
        time, so those sent while it writes go out together next."""
        if not self.batched:
            while (call := await self._queue.get()) is not None:
                yield call
            return
        while (calls := await together(self._queue)) is not None:  # None: retired
            yield common_pb2.ExecuteCalls(calls=calls)

    async def _read(self) -> None:
        try:
            async for message in self._call:
                for answer in message.answers if self.batched else (message,):
                    sent = self.pending.pop(answer.call, None)
                    if sent is not None and not sent.answer.done():
                        sent.answer.set_result(answer)
        except grpc.aio.AioRpcError as error:  # what is pending goes out again
            self.refused = error.code() == grpc.StatusCode.UNIMPLEMENTED
        except asyncio.CancelledError:
            pass
        finally:
            self.open = False
            self.ended(self)


# Lanes per engine replica. A lane's message carries every command queued while its last
# one was written, and the engine answers those ready together in one message, so a few
# lanes carry a busy gateway's commands in few messages, and 4 such lanes beat 16 of one
# command a message (bench.revisions); 16 batched lanes each held one command at a time.
# Per replica, not per target: 16 shared by 4 replicas left each 4 (bench.scaleout).
LANES = 4


class ExecuteStreams:
    def __init__(
        self,
        stub: common_pb2_grpc.EngineStub,
        lanes: int = LANES,
        timeout: float = 10.0,
        lane_seconds: float = 5.0,
        replicas: ReplicaChannels | None = None,
    ) -> None:
        self.stub, self.lanes, self.timeout, self.lane_seconds = stub, lanes, timeout, lane_seconds
        self.replicas = replicas  # lane i on replica i mod n, when the target lists several
        self._lanes: list[Lane] = []
        self._slots: dict[str, list[int]] = {}  # replica address -> the slots of its lanes
        self._next_due = 0.0  # when a lane is next due for renewal (0: look now)
        self._known = 0  # the replicas known at the last renewal
        self._numbers = itertools.count(1)
        self._turn = 0
        self._closed = False
        self._homes: dict[str, int] = {}  # game id -> the slot of its last command
        # False once an engine refused ExecuteBatches (one from before it, in a rolling
        # upgrade): lanes use ExecuteMany from then on, until this gateway restarts.
        self._batched = True

    async def execute(self, request: common_pb2.ExecuteRequest) -> common_pb2.ExecuteResponse:
        """The engine's response, or the typed error it answered with."""
        if self._closed:
            raise EngineUnavailable("the engine client is closed")
        sent = Sent(request, asyncio.get_running_loop().create_future())
        self._send(sent)
        try:
            async with asyncio.timeout(self.timeout):
                answer = await sent.answer
        except TimeoutError:
            if sent.lane is not None:  # perhaps a dead connection: later commands get a new lane
                sent.lane.retire()
                self._next_due = 0.0
            raise EngineUnavailable("the engine did not answer in time") from None
        if answer.HasField("response"):
            return answer.response
        raise status_error(status_pb2.Status.FromString(answer.status))

    async def close(self) -> None:
        self._closed = True
        lanes, self._lanes = self._lanes, []
        await asyncio.gather(*(lane.stop() for lane in lanes))

    def _send(self, sent: Sent) -> None:
        self._pick(sent.request.command.game_id).send(next(self._numbers), sent)

    def _pick(self, game_id: str) -> Lane:
        self._renew()
        lanes = self._lanes
        # The lane with the fewest commands unanswered (round robin among equals): a lane
        # is one long call on one replica, and replicas differ in their lanes and their
        # CPU, so a replica with more lanes or less CPU would otherwise get more than its share.
        # A slow replica's lanes hold more unanswered commands and get fewer new ones.
        busy = [len(lane.pending) for lane in lanes]
        self._turn = (self._turn + 1) % len(busy)
        fewest = min(busy)
        try:
            least = busy.index(fewest, self._turn)
        except ValueError:  # none as idle from the turn on: the first before it
            least = busy.index(fewest)
        home = self._homes.get(game_id)
        if home is not None and home < len(lanes) and lanes[home].holds(game_id):
            return lanes[home]
        replica = self._replica_of(game_id, home)
        if replica is not None and lanes[least].replica != replica and self._slots.get(replica):
            # The game's replica holds it cached; any of that replica's lanes serves it as
            # well, so it takes the least busy of them (a lane shared by several games
            # queues their answers behind one another's writes).
            best = min(self._slots[replica], key=busy.__getitem__)
            least = best if near_enough(busy[best], fewest) else least
        if len(self._homes) >= MAX_HOMES:
            self._homes.clear()
        self._homes[game_id] = least
        return lanes[least]

    def _replica_of(self, game_id: str, home: int | None) -> str | None:
        """The game's replica: the one its last command went to, or for a new game its
        own (services.core.transport.replicas), the same in every gateway; None when
        neither is known."""
        if home is not None and home < len(self._lanes):
            return self._lanes[home].replica
        placed = self.replicas.placed(game_id) if self.replicas is not None else None
        return placed.address if placed is not None else None

    def _renew(self) -> None:
        """Lanes that ended or are older than ``lane_seconds`` replaced, in their slots,
        and ``lanes`` of them on every replica. Looked at only when one is due, one has
        ended, or the replicas known changed: this runs before every command."""
        known = len(self.replicas.replicas) if self.replicas is not None else 0
        now = time.monotonic()
        if now < self._next_due and known == self._known:
            return
        due = [
            i
            for i, lane in enumerate(self._lanes)
            if not lane.open or now - lane.born > self.lane_seconds
        ]
        live = self.replicas.live() if self.replicas is not None else []
        for i in due:
            self._lanes[i].retire()
            self._lanes[i] = self._lane_for(i, live)
        while len(self._lanes) < self.lanes * max(1, len(live)):
            self._lanes.append(self._lane_for(len(self._lanes), live))
        self._slots = {}
        for i, lane in enumerate(self._lanes):
            self._slots.setdefault(lane.replica, []).append(i)
        self._known = known
        self._next_due = min(lane.born for lane in self._lanes) + self.lane_seconds

    def _lane_for(self, slot: int, live: list[Replica]) -> Lane:
        """A lane on the replica of ``slot``; on the shared channel (round robin over the
        replicas that answer) when none is listed or all are failing."""
        if not live:
            return Lane(self.stub, self._ended, batched=self._batched)
        replica = live[slot % len(live)]
        return Lane(replica.stub, self._ended, replica.address, batched=self._batched)

    def _ended(self, lane: Lane) -> None:
        """Send what the lane left unanswered again after a backoff (the caller's timeout
        bounds the attempts: a command timed out is done and not sent again); the lane is
        replaced at the next command."""
        self._next_due = 0.0
        if lane.refused:
            self._batched = False
        pending, lane.pending = lane.pending, {}
        for sent in pending.values():
            if sent.answer.done():
                continue
            delay = min(FIRST_BACKOFF_S * 2 ** (sent.attempts - 1), MAX_BACKOFF_S)
            sent.attempts += 1
            asyncio.get_running_loop().call_later(delay, self._resend, sent)

    def _resend(self, sent: Sent) -> None:
        if sent.answer.done():
            return
        if self._closed:
            sent.answer.set_exception(EngineUnavailable("the engine client is closed"))
            return
        self._send(sent)

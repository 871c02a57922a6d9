"""A typed async client of the shared engine service, for the gateway, bots and tests.

gRPC errors come back as the same typed errors the engine raised (VersionConflict with
the current version, RuleViolation with its code...), read from the status details.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
import orjson
from grpc_health.v1 import health_pb2, health_pb2_grpc

from raffe.v1 import common_pb2, common_pb2_grpc
from services.core.codec import dumps, loads
from services.core.errors import RaffeError
from services.core.grpc_errors import EngineUnavailable, from_call_error, typed
from services.core.logs import REQUEST_ID
from services.core.readiness import READY_SERVICE
from services.core.transport.lanes import ExecuteStreams
from services.core.transport.replicas import ReplicaChannels
from services.kernel.game import SeatSpec

R = TypeVar("R")


SERVICE_CONFIG = dumps(
    {
        "loadBalancingConfig": [{"round_robin": {}}],
        "methodConfig": [
            {
                "name": [{"service": "raffe.v1.Engine"}],
                "retryPolicy": {
                    "maxAttempts": 5,
                    "initialBackoff": "0.05s",
                    "maxBackoff": "1s",
                    "backoffMultiplier": 2,
                    "retryableStatusCodes": ["UNAVAILABLE"],
                },
            }
        ],
    }
).decode()


# A replica's own channel tries a lost replica again within 5 s (gRPC's default backoff
# grows to 120 s), so a restarted replica gets its lanes back soon.
REPLICA_OPTIONS = [("grpc.max_reconnect_backoff_ms", 5000)]


def typed_error(error: grpc.aio.AioRpcError) -> RaffeError:
    return typed(error.code(), from_call_error(error), error.details() or "")


@dataclass(frozen=True)
class Executed:
    version: int
    partition: int
    position: int
    duplicate: bool
    events: list[dict[str, Any]]
    view: dict[str, Any]
    commands: dict[str, Any]
    seat: int  # whose view and commands (the caller's, unless answer_next)


@dataclass(frozen=True)
class Look:
    """A game as one seat sees it: the first to act of those asked about, else the one
    asked for (``EngineClient.first_to_act``)."""

    version: int
    seat: int  # whose view and commands these are
    view: dict[str, Any]
    status: dict[str, Any]
    commands: dict[str, Any]


def event_json(e: common_pb2.Event, data: Any = None) -> dict[str, Any]:
    """An event as clients see it; ``data`` defaults to the parsed payload (pass an
    ``orjson.Fragment`` of the payload to embed it without parsing)."""
    return {
        "id": e.id,
        "game_id": e.game_id,
        "version": e.version,
        "type": e.type,
        "schema_version": e.schema_version,
        "data": loads(e.payload_json) if data is None else data,
        "actor": e.actor_seat,
        "command_id": e.command_id,
        "time_ms": e.time_ms,
        "engine_version": e.engine_version,
    }


class EngineClient:
    """``multiplexed``: commands (not dry runs) go over ExecuteBatches streams
    (services.core.transport.lanes), everything else as unary calls. Creations, commands,
    views and legal commands go to the game's own replica (``_at_home``)."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        timeout: float = 10.0,
        multiplexed: bool = False,
        replicas: ReplicaChannels | None = None,
    ) -> None:
        self.channel = channel
        self.stub = common_pb2_grpc.EngineStub(channel)  # type: ignore[no-untyped-call]
        self.timeout = timeout
        self.replicas = replicas
        self.streams = (
            ExecuteStreams(self.stub, timeout=timeout, replicas=replicas) if multiplexed else None
        )

    @classmethod
    def connect(cls, target: str, multiplexed: bool = False) -> EngineClient:
        # round_robin over every address a dns:/// target resolves to (headless Services);
        # a call that finds its replica gone (UNAVAILABLE) is retried on another one. Safe:
        # commands carry ids the engine deduplicates.
        options = [
            ("grpc.lb_policy_name", "round_robin"),
            ("grpc.enable_retries", 1),
            ("grpc.service_config", SERVICE_CONFIG),
        ]
        channel = grpc.aio.insecure_channel(target, options=options)
        # Connect to every replica now, not at the first call: a long-lived ExecuteBatches
        # lane opened while only one replica was ready stays on it.
        channel.get_state(try_to_connect=True)
        # The command lanes are placed on every replica, and a new game is created on its
        # own (services.core.transport.replicas).
        replicas = ReplicaChannels.of(target, [*options, *REPLICA_OPTIONS])
        return cls(channel, multiplexed=multiplexed, replicas=replicas)

    async def ready(self, within_s: float = 1.0) -> bool:
        """Whether the engine says it can serve (its gRPC health ``raffe.ready``: it
        reaches Redis; services.core.readiness)."""
        stub = health_pb2_grpc.HealthStub(self.channel)
        request = health_pb2.HealthCheckRequest(service=READY_SERVICE)
        try:
            answer = await stub.Check(request, timeout=within_s)
        except grpc.aio.AioRpcError:
            return False
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)

    async def close(self) -> None:
        if self.streams is not None:
            await self.streams.close()
        if self.replicas is not None:
            await self.replicas.close()
        await self.channel.close()

    async def _call(self, call: Callable[[], Awaitable[R]]) -> R:
        try:
            return await call()
        except grpc.aio.AioRpcError as error:
            raise typed_error(error) from None

    async def create(
        self,
        seats: Sequence[SeatSpec],
        options: Mapping[str, Any],
        *,
        game_id: str = "",
        seed: str = "",
        command_id: str = "",
        attended: bool = False,
        practice: bool = False,
        rematch_of: str = "",
    ) -> common_pb2.CreateGameResponse:
        # The id is chosen here so that the game is created on the replica its commands
        # will go to (services.core.transport.replicas), whose cache then holds it: created
        # elsewhere, its first command there read and folded it from the start.
        game_id = game_id or self.new_game_id()
        request = common_pb2.CreateGameRequest(
            game_id=game_id,
            seats=[
                common_pb2.Seat(
                    index=i, kind=s.kind, name=s.name, bot_level=s.bot_level, player=s.player
                )
                for i, s in enumerate(seats)
            ],
            options_json=dumps(dict(options)),
            seed=seed,
            command_id=command_id,
            attended=attended,
            practice=practice,
            rematch_of=rematch_of,
        )
        return await self._at_home(game_id, lambda s: s.CreateGame(request, timeout=self.timeout))

    async def _at_home(self, game_id: str, call: Callable[[Any], Awaitable[R]]) -> R:
        """A call about a game, on the game's replica (``placed``), whose cache holds it
        current: a command there is decided on the cached state with no read first. Sent
        round robin instead, most calls of a move reached a replica whose copy was behind
        and read and folded the others' events first, and engines spent more CPU the more
        replicas there were (bench.scaleout). If its replica went
        away before its channel said so, any other will do: commands carry ids the engine
        deduplicates, and the game is then read once where the call lands."""
        placed = self.replicas.placed(game_id) if self.replicas is not None else None
        if placed is None:
            return await self._call(lambda: call(self.stub))
        try:
            return await self._call(lambda: call(placed.stub))
        except EngineUnavailable:
            return await self._call(lambda: call(self.stub))

    def new_game_id(self) -> str:
        """An id for a game about to be created: where there are replicas, one placed on
        the next of them in turn, so this client's games spread evenly."""
        return self.replicas.new_game_id() if self.replicas is not None else uuid.uuid4().hex

    async def execute(
        self,
        game_id: str,
        seat: int,
        command: Mapping[str, Any],
        command_id: str,
        expected_version: int = 0,
        answer_next: bool = False,
        stand_in: bool = False,
    ) -> Executed:
        """``answer_next`` (server-side callers, the bot runner): the answer's view and
        legal commands are the next seat to act's, not the caller's (see Executed.seat)."""
        r = await self._execute(
            game_id, seat, command, command_id, expected_version, answer_next, stand_in
        )
        return Executed(
            r.version,
            r.partition,
            r.position,
            r.duplicate,
            [event_json(e) for e in r.events],
            loads(r.view_json),
            loads(r.commands_json) if r.commands_json else {},
            r.answer_seat if r.HasField("answer_seat") else seat,
        )

    async def execute_json(
        self,
        game_id: str,
        seat: int,
        command: Mapping[str, Any],
        command_id: str,
        expected_version: int = 0,
    ) -> tuple[int, bytes, bytes]:
        """The same as execute, answered as the JSON of the gateway's CommandResult (and
        the view's JSON apart): the engine's event payloads and view are embedded as they
        are, never parsed here."""
        r = await self._execute(game_id, seat, command, command_id, expected_version)
        body = {
            "version": r.version,
            "position": r.position,
            "duplicate": r.duplicate,
            "events": [event_json(e, orjson.Fragment(e.payload_json)) for e in r.events],
            "view": orjson.Fragment(r.view_json),
            "commands": orjson.Fragment(r.commands_json or b"{}"),
        }
        return r.version, orjson.dumps(body), r.view_json

    async def _execute(
        self,
        game_id: str,
        seat: int,
        command: Mapping[str, Any],
        command_id: str,
        expected_version: int,
        answer_next: bool = False,
        stand_in: bool = False,
    ) -> common_pb2.ExecuteResponse:
        request = common_pb2.ExecuteRequest(
            command=common_pb2.Command(
                game_id=game_id,
                seat=seat,
                command_id=command_id,
                expected_version=expected_version,
                command_json=dumps(dict(command)),
                answer_next=answer_next,
                stand_in=stand_in,
                request_id=REQUEST_ID.get(),
            )
        )
        if self.streams is not None:
            return await self.streams.execute(request)
        return await self._at_home(game_id, lambda s: s.Execute(request, timeout=self.timeout))

    async def view(self, game_id: str, seat: int) -> tuple[int, dict[str, Any], dict[str, Any]]:
        request = common_pb2.ViewRequest(game_id=game_id, seat=seat)
        r = await self._at_home(game_id, lambda s: s.GetView(request, timeout=self.timeout))
        return r.version, loads(r.view_json), loads(r.status_json)

    async def view_and_commands(
        self, game_id: str, seat: int
    ) -> tuple[int, dict[str, Any], dict[str, Any], dict[str, Any]]:
        """Version, view, status and legal commands of one state, in one call."""
        request = common_pb2.ViewRequest(game_id=game_id, seat=seat, with_commands=True)
        r = await self._at_home(game_id, lambda s: s.GetView(request, timeout=self.timeout))
        return r.version, loads(r.view_json), loads(r.status_json), loads(r.commands_json)

    async def first_to_act(self, game_id: str, seats: Iterable[int], otherwise: int) -> Look:
        """The view, status and legal commands of the first of ``seats`` that must act
        (``otherwise``'s when none must), from one state in one call: a bot runner looks
        at a game and gets its bot's view at once. An engine from before first_of answers
        for ``otherwise``."""
        request = common_pb2.ViewRequest(
            game_id=game_id, seat=otherwise, with_commands=True, first_of=list(seats)
        )
        r = await self._at_home(game_id, lambda s: s.GetView(request, timeout=self.timeout))
        seat = r.answer_seat if r.HasField("answer_seat") else otherwise
        commands = loads(r.commands_json) if r.commands_json else {}
        return Look(r.version, seat, loads(r.view_json), loads(r.status_json), commands)

    async def commands(self, game_id: str, seat: int) -> tuple[int, dict[str, Any]]:
        request = common_pb2.ListCommandsRequest(game_id=game_id, seat=seat)
        r = await self._at_home(game_id, lambda s: s.ListCommands(request, timeout=self.timeout))
        return r.version, loads(r.commands_json)

    async def events(
        self, game_id: str, seat: int, after: int = 0, limit: int = 0
    ) -> tuple[int, list[dict[str, Any]]]:
        request = common_pb2.ReadEventsRequest(
            game_id=game_id, seat=seat, after_version=after, limit=limit
        )
        r = await self._call(lambda: self.stub.ReadEvents(request, timeout=self.timeout))
        return r.version, [event_json(e) for e in r.events]

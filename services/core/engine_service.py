"""The shared gRPC engine service (proto raffe.v1.Engine) over a GameRuntime."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from typing import Any, TypeVar

import grpc
from google.rpc import status_pb2
from grpc_status import rpc_status
from prometheus_client import Counter, Histogram

from raffe.v1 import common_pb2, common_pb2_grpc
from services.core.codec import dumps, loads
from services.core.errors import InvalidArgument, RaffeError, store_failure
from services.core.eventstore import StoredEvent
from services.core.grpc_errors import INTERNAL, status_of
from services.core.logs import REQUEST_ID
from services.core.queues import together
from services.core.runtime import GameRuntime, Outcome
from services.kernel.game import SeatSpec

log = logging.getLogger(__name__)
COMMANDS = Counter("raffe_engine_commands_total", "Commands executed", ["game", "result"])
LATENCY = Histogram("raffe_engine_command_seconds", "Time to execute a command", ["game"])
R = TypeVar("R")
M = TypeVar("M")  # a stream's message: one call, or several
MAX_PAGE = 500
MAX_IN_FLIGHT = 256  # calls one ExecuteMany stream may have running at once
SEAT_KINDS = ("human", "bot", "open")


def _json_object(raw: bytes, what: str) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        value = loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidArgument(f"{what} is not valid JSON", "bad_json") from exc
    if not isinstance(value, dict):
        raise InvalidArgument(f"{what} must be a JSON object", "bad_json")
    return value


def _alone(call: common_pb2.ExecuteCall) -> Sequence[common_pb2.ExecuteCall]:
    return (call,)


def _calls_of(batch: common_pb2.ExecuteCalls) -> Sequence[common_pb2.ExecuteCall]:
    return batch.calls


def event_pb(e: StoredEvent) -> common_pb2.Event:
    return common_pb2.Event(
        id=e.id,
        game_id=e.game_id,
        version=e.version,
        type=e.type,
        schema_version=e.schema_version,
        payload_json=e.payload,
        actor_seat=e.actor,
        command_id=e.command_id,
        time_ms=e.time_ms,
        engine_version=e.engine_version,
        position=e.position,
    )


PLAYER_ID = re.compile(r"^pl[0-9a-f]{24}$")  # gateway.accounts.service.PLAYER_ID_PATTERN


def _seats(seats: Any) -> list[SeatSpec]:
    out = []
    for i, s in enumerate(seats):
        if s.index not in (0, i) or s.kind not in SEAT_KINDS:
            raise InvalidArgument(f"seat {i}: kind must be one of {SEAT_KINDS}", "bad_seat")
        if s.player and not PLAYER_ID.match(s.player):
            raise InvalidArgument(f"seat {i}: not a player id", "bad_seat")
        out.append(SeatSpec(s.kind, s.name[:64], s.bot_level[:32], s.player))
    return out


def failure_status(error: Exception) -> status_pb2.Status:
    """A typed error's status (Redis out of reach: UNAVAILABLE, which clients retry);
    anything else is logged and INTERNAL, never a crash."""
    if isinstance(error, RaffeError):
        return status_of(error)
    unavailable = store_failure(error)
    if unavailable is not None:
        log.warning("event store unavailable", extra={"error": str(error)})
        return status_of(unavailable)
    log.error("unexpected error", exc_info=error)
    return INTERNAL


async def guard(context: grpc.aio.ServicerContext, call: Callable[[], Awaitable[R]]) -> R:
    """A unary call: what fails ends the call with its failure_status."""
    try:
        return await call()
    except Exception as error:
        await context.abort_with_status(rpc_status.to_status(failure_status(error)))
    raise AssertionError("unreachable")


def _retrieved(task: asyncio.Future[None]) -> None:
    """Take a background task's outcome, so asyncio does not log it as never retrieved."""
    if not task.cancelled():
        task.exception()


class EngineService(common_pb2_grpc.EngineServicer):
    def __init__(self, runtime: GameRuntime[Any]) -> None:
        self.runtime = runtime
        self.stopping = asyncio.Event()  # set on SIGTERM: lanes finish and end
        game = runtime.game.name
        # Bound once: a label lookup per command costs about a microsecond each.
        self._latency = LATENCY.labels(game)
        self._counted = {r: COMMANDS.labels(game, r) for r in ("ok", "duplicate")}

    async def CreateGame(
        self, request: common_pb2.CreateGameRequest, context: grpc.aio.ServicerContext
    ) -> common_pb2.CreateGameResponse:
        async def run() -> common_pb2.CreateGameResponse:
            outcome = await self.runtime.create(
                _seats(request.seats),
                _json_object(request.options_json, "options"),
                game_id=request.game_id,
                seed=request.seed,
                command_id=request.command_id,
                time_ms=request.time_ms or None,
                attended=request.attended,
                practice=request.practice,
                rematch_of=request.rematch_of,
            )
            r = outcome.result
            created = loads(outcome.events[0].payload) if outcome.events else {}
            return common_pb2.CreateGameResponse(
                game_id=outcome.game_id,
                version=r.version,
                partition=r.partition,
                position=r.last_position,
                seed_hash=created.get("seed_hash", ""),
            )

        return await guard(context, run)

    async def Execute(
        self, request: common_pb2.ExecuteRequest, context: grpc.aio.ServicerContext
    ) -> common_pb2.ExecuteResponse:
        return await guard(context, lambda: self._execute(request.command))

    async def ExecuteMany(
        self,
        calls: AsyncIterator[common_pb2.ExecuteCall],
        context: grpc.aio.ServicerContext,
    ) -> AsyncIterator[common_pb2.ExecuteAnswer]:
        """A message per call and per answer (ExecuteBatches carries several in one)."""
        async for answers in self._answers(calls, _alone):
            for answer in answers:
                yield answer

    async def ExecuteBatches(
        self,
        batches: AsyncIterator[common_pb2.ExecuteCalls],
        context: grpc.aio.ServicerContext,
    ) -> AsyncIterator[common_pb2.ExecuteAnswers]:
        """ExecuteMany with the calls that came together in one message, and the answers
        ready together in one: the gateway's lanes."""
        async for answers in self._answers(batches, _calls_of):
            yield common_pb2.ExecuteAnswers(answers=answers)

    async def _answers(
        self, messages: AsyncIterator[M], calls_in: Callable[[M], Sequence[common_pb2.ExecuteCall]]
    ) -> AsyncIterator[list[common_pb2.ExecuteAnswer]]:
        """Each call runs as its own task (one slow command holds up no other) and is
        answered as soon as it is done, with every other answer ready by then; at most
        MAX_IN_FLIGHT calls per stream are running or waiting for the client to take their
        answers, so a client that stops reading stops the engine from reading its calls
        too."""
        answers: asyncio.Queue[common_pb2.ExecuteAnswer | None] = asyncio.Queue()
        room = asyncio.Semaphore(MAX_IN_FLIGHT)
        running: set[asyncio.Task[None]] = set()

        async def answer(call: common_pb2.ExecuteCall) -> None:
            try:
                response = await self._execute(call.request.command)
                answers.put_nowait(common_pb2.ExecuteAnswer(call=call.call, response=response))
            except Exception as error:  # a typed error or a bug: an answer either way
                status = failure_status(error).SerializeToString()
                answers.put_nowait(common_pb2.ExecuteAnswer(call=call.call, status=status))

        async def take() -> None:
            async for message in messages:
                if self.stopping.is_set():
                    continue  # ending: the client sends these again to another replica
                for call in calls_in(message):
                    await room.acquire()
                    task = asyncio.create_task(answer(call))
                    running.add(task)
                    task.add_done_callback(running.discard)

        async def read() -> None:
            await self._until_stopping(take())
            await asyncio.gather(*running)
            answers.put_nowait(None)  # the client is done writing and every call answered

        reader = asyncio.create_task(read())
        try:
            while (ready := await together(answers)) is not None:
                yield ready
                for _ in ready:
                    room.release()  # the answers are on their way: room for more calls
            await reader  # raises what ended the reading, if anything did
        finally:
            for task in (reader, *running):
                task.cancel()

    async def _until_stopping(self, reading: Coroutine[Any, Any, None]) -> None:
        """Read a lane's calls until the client is done, or until the engine stops: then
        take no more (``take`` skips them), so the lane ends once what it took is
        answered, and the client sends the rest on a lane to another replica (the same
        command ids: never applied twice). Held open, a lane kept a stopping engine
        alive until the client renewed it (up to 5 s, lane_seconds). The reading is not
        cancelled (cancelled, gRPC's request iterator could not be closed); it ends with
        the call."""
        task = asyncio.ensure_future(reading)
        stopping = asyncio.ensure_future(self.stopping.wait())
        try:
            await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
        if task.done():
            task.result()  # raises what ended the reading, if anything did
        else:
            task.add_done_callback(_retrieved)

    async def _execute(self, c: common_pb2.Command) -> common_pb2.ExecuteResponse:
        game = self.runtime.game.name
        REQUEST_ID.set(c.request_id)  # its logs name the gateway's request ("" if none)
        try:
            with self._latency.time():
                return await self._execute_timed(c)
        except RaffeError as error:
            COMMANDS.labels(game, error.code).inc()
            log.info(
                "command refused",
                extra={"game_id": c.game_id, "seat": c.seat, "code": error.code},
            )
            raise

    async def _execute_timed(self, c: common_pb2.Command) -> common_pb2.ExecuteResponse:
        outcome = await self.runtime.execute(
            c.game_id,
            c.seat,
            _json_object(c.command_json, "command"),
            command_id=c.command_id,
            expected_version=c.expected_version,
            time_ms=c.time_ms or None,
            stand_in=c.stand_in,
        )
        seat, state, g = self._answer_seat(c, outcome), outcome.state, self.runtime.game
        if state is None:
            _, view, _, commands = await self.runtime.view_and_commands(c.game_id, seat)
        else:
            view, commands = g.view(state, seat), g.legal_commands(state, seat)
        r = outcome.result
        self._counted["duplicate" if r.duplicate else "ok"].inc()
        log.debug(  # per command: metrics count them; refusals are logged at info
            "command",
            extra={
                "game_id": c.game_id,
                "version": r.version,
                "seat": c.seat,
                "command_id": c.command_id,
                "duplicate": r.duplicate,
            },
        )
        return common_pb2.ExecuteResponse(
            version=r.version,
            partition=r.partition,
            position=r.last_position,
            duplicate=r.duplicate,
            events=[event_pb(e) for e in outcome.events],
            view_json=dumps(view),
            commands_json=dumps(commands),
            answer_seat=seat,
        )

    def _answer_seat(self, c: common_pb2.Command, outcome: Outcome) -> int:
        """Whose view and legal commands the answer carries: the caller's, or with
        answer_next the first seat to act at the command's version (the caller's when
        none must, or the state is not at hand)."""
        if not c.answer_next or outcome.state is None:
            return c.seat
        to_act = self.runtime.game.status(outcome.state).to_act
        return int(to_act[0]) if to_act else c.seat

    async def GetView(
        self, request: common_pb2.ViewRequest, context: grpc.aio.ServicerContext
    ) -> common_pb2.ViewResponse:
        async def run() -> common_pb2.ViewResponse:
            seat = request.seat
            if request.first_of:
                version, seat, view, status, legal = await self.runtime.first_to_act(
                    request.game_id, request.first_of, request.seat, request.with_commands
                )
                commands = dumps(legal) if request.with_commands else b""
            elif request.with_commands:
                version, view, status, legal = await self.runtime.view_and_commands(
                    request.game_id, seat
                )
                commands = dumps(legal)
            else:
                version, view, status = await self.runtime.view(request.game_id, seat)
                commands = b""
            return common_pb2.ViewResponse(
                game_id=request.game_id,
                version=version,
                view_json=dumps(view),
                status_json=dumps(status),
                commands_json=commands,
                answer_seat=seat,
            )

        return await guard(context, run)

    async def ListCommands(
        self, request: common_pb2.ListCommandsRequest, context: grpc.aio.ServicerContext
    ) -> common_pb2.ListCommandsResponse:
        async def run() -> common_pb2.ListCommandsResponse:
            version, legal = await self.runtime.legal_commands(request.game_id, request.seat)
            return common_pb2.ListCommandsResponse(version=version, commands_json=dumps(legal))

        return await guard(context, run)

    async def ReadEvents(
        self, request: common_pb2.ReadEventsRequest, context: grpc.aio.ServicerContext
    ) -> common_pb2.ReadEventsResponse:
        async def run() -> common_pb2.ReadEventsResponse:
            limit = min(request.limit or MAX_PAGE, MAX_PAGE)
            version, events = await self.runtime.events(
                request.game_id, request.seat, request.after_version, limit
            )
            return common_pb2.ReadEventsResponse(
                events=[event_pb(e) for e in events], version=version
            )

        return await guard(context, run)

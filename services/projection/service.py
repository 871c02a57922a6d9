"""The projection's gRPC service (replay) and the process that runs it with the worker."""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from raffe.v1 import common_pb2, projection_pb2, projection_pb2_grpc
from services.core.codec import dumps
from services.core.errors import InvalidArgument, UnknownGame
from services.core.eventstore import EventStore, open_store
from services.core.gamestate import fold, state_at
from services.core.logs import configure_logging
from services.core.metrics import start_metrics
from services.core.readiness import READY_SERVICE, Readiness
from services.core.server import guard, serving
from services.core.settings import ServiceSettings
from services.projection.consumer import Projector
from services.projection.streams import STREAMS
from services.ratings.follow import boards_of, follow_ratings
from services.targets import PROJECTION_PORT

log = logging.getLogger("projection")
SERVICE = projection_pb2.DESCRIPTOR.services_by_name["Projection"].full_name


async def replay_view(
    store: EventStore, game_id: str, seat: int, version: int, reveal: bool = False
) -> dict[str, Any]:
    """The view ``seat`` had at ``version``; with ``reveal``, every card (finished games
    only: the whole log is public then)."""
    meta = await store.meta(game_id)
    if meta is None or meta.game_type not in STREAMS:
        raise UnknownGame(f"no game {game_id}")
    if not 1 <= version <= meta.version:
        raise InvalidArgument(f"version must be 1..{meta.version}", "bad_version")
    game = STREAMS[meta.game_type]
    stored = await store.read_game(game_id)
    at_version = state_at(game, stored, version)
    if reveal and not game.status(fold(game, stored[version:], at_version)).over:
        raise InvalidArgument("reveal is for games that are over", "game_not_over")
    return dict(game.view(at_version, seat, reveal))


class ProjectionService(projection_pb2_grpc.ProjectionServicer):
    def __init__(self, store: EventStore) -> None:
        self.store = store

    async def Replay(
        self, request: common_pb2.ReplayRequest, context: grpc.aio.ServicerContext
    ) -> common_pb2.ViewResponse:
        async def run() -> common_pb2.ViewResponse:
            view = await replay_view(
                self.store, request.game_id, request.seat, request.version, request.reveal
            )
            return common_pb2.ViewResponse(
                game_id=request.game_id, version=request.version, view_json=dumps(view)
            )

        return await guard(context, run)


async def serve() -> None:
    configure_logging()
    settings = ServiceSettings.from_env(default_port=PROJECTION_PORT)
    store = await open_store(settings.store)
    readiness = Readiness(store.redis)  # gRPC health raffe.ready, and /readyz
    checking = readiness.start()
    start_metrics(readiness)
    server = grpc.aio.server()
    projection_pb2_grpc.add_ProjectionServicer_to_server(ProjectionService(store), server)  # type: ignore[no-untyped-call]
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection([SERVICE, health.SERVICE_NAME], server)
    server.add_insecure_port(f"{settings.host}:{settings.port}")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set(READY_SERVICE, health_pb2.HealthCheckResponse.NOT_SERVING)
    await readiness.listen(serving(health_servicer, READY_SERVICE))
    projector = Projector(store, settings.lease_ms, settings.cache_mb * 1024 * 1024)
    worker = asyncio.create_task(projector.run())
    boards = asyncio.create_task(follow_ratings(boards_of(store, settings.ratings)))
    log.info("serving", extra={"port": settings.port})
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await asyncio.wait(
        [worker, asyncio.create_task(stopping.wait())], return_when="FIRST_COMPLETED"
    )
    projector.stopping.set()
    boards.cancel()
    checking.cancel()
    await health_servicer.enter_graceful_shutdown()
    await server.stop(5)
    await worker
    await store.redis.aclose()
    log.info("stopped")

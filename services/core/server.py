"""Running a gRPC engine: health checking, reflection, graceful shutdown on SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from raffe.v1 import common_pb2, common_pb2_grpc
from services.core.engine_service import EngineService, guard
from services.core.eventstore import open_store
from services.core.logs import configure_logging
from services.core.metrics import start_metrics
from services.core.readiness import READY_SERVICE, Readiness
from services.core.runtime import GameRuntime
from services.core.settings import ServiceSettings
from services.kernel.game import Game

ENGINE_SERVICE = common_pb2.DESCRIPTOR.services_by_name["Engine"].full_name
GRACE_SECONDS = 10.0


@dataclass
class RunningEngine:
    server: grpc.aio.Server
    runtime: GameRuntime[Any]
    health: health.aio.HealthServicer
    port: int
    readiness: Readiness | None = None
    checking: asyncio.Task[None] | None = None  # the readiness loop
    service: EngineService | None = None

    async def stop(self, grace: float = GRACE_SECONDS) -> None:
        # Not serving first, so load balancers stop sending; then finish calls in flight.
        if self.checking is not None:
            self.checking.cancel()
        await self.health.enter_graceful_shutdown()
        if self.service is not None:  # command lanes end once their calls are answered
            self.service.stopping.set()
        await self.server.stop(grace)
        await self.runtime.store.redis.aclose()


async def start_engine(game: Game[Any], settings: ServiceSettings) -> RunningEngine:
    """Build and start the server (settings.port 0 picks a free port)."""
    store = await open_store(settings.store)
    runtime = GameRuntime(game, store, settings.cache_mb * 1024 * 1024)
    server = grpc.aio.server(options=[("grpc.max_receive_message_length", 1 << 20)])
    service = EngineService(runtime)
    common_pb2_grpc.add_EngineServicer_to_server(service, server)  # type: ignore[no-untyped-call]
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        [ENGINE_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    port = server.add_insecure_port(f"{settings.host}:{settings.port}")
    await server.start()
    for name in ("", ENGINE_SERVICE):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    readiness = Readiness(store.redis)
    await health_servicer.set(READY_SERVICE, health_pb2.HealthCheckResponse.NOT_SERVING)
    await readiness.listen(serving(health_servicer, READY_SERVICE))
    return RunningEngine(
        server, runtime, health_servicer, port, readiness, readiness.start(), service
    )


def serving(servicer: health.aio.HealthServicer, name: str) -> Callable[[bool], Awaitable[None]]:
    """A Readiness listener: the gRPC health of ``name`` follows it (readiness probes)."""
    statuses = health_pb2.HealthCheckResponse

    async def follow(ready: bool) -> None:
        await servicer.set(name, statuses.SERVING if ready else statuses.NOT_SERVING)

    return follow


async def serve_engine(game: Game[Any], default_port: int) -> None:
    """The entry point of ``python -m services.<game>``."""
    configure_logging()
    settings = ServiceSettings.from_env(default_port)
    engine = await start_engine(game, settings)
    start_metrics(engine.readiness)
    log = logging.getLogger(game.name)
    log.info("serving", extra={"port": engine.port, "game": game.name})
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    await engine.stop()
    log.info("stopped")


__all__ = ["RunningEngine", "guard", "serve_engine", "start_engine"]

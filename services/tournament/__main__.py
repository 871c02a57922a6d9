"""python -m services.tournament [engine|runner]: the tournament service.

With no argument one process is a whole replica: the tournament engine (gRPC, on
RAFFE_PORT) and the tournament runner, which follows the partitions it leases. Run as
many replicas as you like; ``engine`` or ``runner`` runs one half."""

import asyncio
import logging
import signal
import sys

from services.core.eventstore import open_store
from services.core.logs import configure_logging
from services.core.loop import run
from services.core.metrics import start_metrics
from services.core.readiness import Readiness
from services.core.server import start_engine
from services.core.settings import ServiceSettings
from services.core.transport import EngineClient
from services.targets import TOURNAMENT_PORT, engine_targets
from services.tournament.game import GAME
from services.tournament.runner import TournamentRunner

DEFAULT_PORT = TOURNAMENT_PORT
log = logging.getLogger("tournament")


async def main(part: str) -> None:
    configure_logging()
    probe = await open_store(ServiceSettings.from_env(DEFAULT_PORT).store)
    readiness = Readiness(probe.redis)  # /readyz on the metrics port
    checking = readiness.start()
    start_metrics(readiness)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    engine = None
    if part in ("", "engine"):
        engine = await start_engine(GAME, ServiceSettings.from_env(DEFAULT_PORT))
        log.info("serving", extra={"port": engine.port, "game": GAME.name})
    if part in ("", "runner"):
        await run_runner(stopping)
    else:
        await stopping.wait()
    if engine is not None:
        await engine.stop()
    checking.cancel()
    await probe.redis.aclose()
    log.info("stopped")


async def run_runner(stopping: asyncio.Event) -> None:
    settings = ServiceSettings.from_env(DEFAULT_PORT)
    store = await open_store(settings.store)
    engines = {name: EngineClient.connect(t) for name, t in engine_targets().items()}
    runner = TournamentRunner(store, engines, settings.lease_ms)
    watcher = asyncio.create_task(_stop_when(stopping, runner))
    log.info("running")
    await runner.run()
    watcher.cancel()
    for client in engines.values():
        await client.close()
    await store.redis.aclose()


async def _stop_when(stopping: asyncio.Event, runner: TournamentRunner) -> None:
    await stopping.wait()
    runner.stopping.set()


if __name__ == "__main__":
    part = sys.argv[1] if len(sys.argv) > 1 else ""
    if part not in ("", "engine", "runner"):
        sys.exit("usage: python -m services.tournament [engine|runner]")
    run(main(part))

"""python -m services.bots: the bot runner (and timer driver) and the quick-play
matchmaker."""

import asyncio
import logging
import signal

from services.bots.runner import BotRunner
from services.bots.sweeper import Sweeper
from services.bots.thinking import Thinkers
from services.core.eventstore import open_store
from services.core.logs import configure_logging
from services.core.loop import run
from services.core.metrics import start_metrics
from services.core.presence import Presence
from services.core.readiness import Readiness
from services.core.settings import BotSettings, ServiceSettings
from services.core.transport import EngineClient
from services.quickplay.matchmaker import Matchmaker
from services.ratings.follow import boards_of
from services.targets import BOTS_PORT, engine_targets


async def main() -> None:
    configure_logging()
    settings = ServiceSettings.from_env(default_port=BOTS_PORT)
    store = await open_store(settings.store)
    readiness = Readiness(store.redis)  # /readyz on the metrics port
    checking = readiness.start()
    start_metrics(readiness)
    engines = {name: EngineClient.connect(t) for name, t in engine_targets().items()}
    bots = BotSettings()
    thinkers = Thinkers(bots.bot_workers)  # worker processes for the levels that search
    runner = BotRunner(
        store, engines, settings.lease_ms, bots.bot_pace_ms, bots.bot_stuck_s, thinkers
    )
    # The quick-play matchmaker runs beside it (one at a time across replicas: a lease).
    boards = boards_of(store, settings.ratings)  # bot levels are rated: bots to match
    after, turn_based_after = bots.quickplay_bots_after_s, bots.turn_based_bots_after_s
    matchmaker = Matchmaker(
        store, engines, after, boards, settings.lease_ms, turn_based_after, bots.bot_games_per_day
    )
    # Presence: a seat whose player is gone gets a bot (services.bots.sweeper).
    prefix, heartbeat = settings.store.key_prefix, bots.sse_heartbeat_s
    presence = Presence(store.redis, prefix, heartbeat, bots.gone_after_s, bots.claim_after_s)
    sweeper = Sweeper(store, engines, presence, bots.claim_after_s)
    loop = asyncio.get_running_loop()

    def stop() -> None:  # one handler per signal: a second would replace the first
        runner.stopping.set()
        matchmaker.stopping.set()
        sweeper.stopping.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)
    logging.getLogger("bots").info("running")
    await asyncio.gather(runner.run(), matchmaker.run(), sweeper.run())
    checking.cancel()
    thinkers.close()
    for engine in engines.values():
        await engine.close()
    await store.redis.aclose()
    logging.getLogger("bots").info("stopped")


if __name__ == "__main__":
    run(main())

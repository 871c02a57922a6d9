"""Where a bot decides (#53, docs/bots.md). Most levels take well under a millisecond and
decide on the runner's event loop; the levels that search (a game's ``searching_bots``,
~0.2 s of CPU a decision) decide in worker processes, so the runner keeps serving every
other table meanwhile and uses as many cores as RAFFE_BOT_WORKERS gives it.

The workers are spawned (never forked: the runner holds gRPC and Redis connections and
threads) on the first searching decision, and spawned again if one dies.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from services.games import GAMES
from services.kernel.rng import SeededRng

log = logging.getLogger("bots")


def decide(
    game_type: str, level: str, view: dict[str, Any], legal: dict[str, Any], rng: SeededRng
) -> dict[str, Any]:
    """A bot's command (in a worker process, or in this one)."""
    return GAMES[game_type].bot(level)(view, legal, rng)


class Thinkers:
    def __init__(self, workers: int = 0) -> None:
        self.workers = workers  # 0: every level on the event loop (tests, small machines)
        self.pool: ProcessPoolExecutor | None = None

    def searching(self, game_type: str, level: str) -> bool:
        spec = GAMES[game_type]
        return (level or spec.default_bot) in spec.searching_bots

    async def decide(
        self,
        game_type: str,
        level: str,
        view: dict[str, Any],
        legal: dict[str, Any],
        rng: SeededRng,
    ) -> dict[str, Any]:
        if not self.workers or not self.searching(game_type, level):
            return decide(game_type, level, view, legal, rng)
        if self.pool is None:
            spawn = multiprocessing.get_context("spawn")
            self.pool = ProcessPoolExecutor(self.workers, mp_context=spawn)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.pool, decide, game_type, level, view, legal, rng)
        except BrokenProcessPool:  # a worker was killed: new workers for the next one
            log.warning("bot workers restarted", extra={"game_type": game_type})
            self.pool = None
            return decide(game_type, level, view, legal, rng)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

"""Keeping the boards current: every projection replica folds each kind's ratings stream
into the boards as it grows (folding an event twice writes the same, so replicas need
no lease), and ``rebuild`` draws them again from the streams alone."""

from __future__ import annotations

import asyncio
import logging

from services.core.eventstore import EventStore
from services.core.settings import RatingSettings
from services.games import GAMES
from services.ratings.boards import Boards, Seasons

log = logging.getLogger(__name__)
WAIT_MS = 1000  # a blocking read's bound (below the Redis client's socket timeout)


def boards_of(store: EventStore, settings: RatingSettings) -> Boards:
    seasons = Seasons(settings.season_start, settings.season_days)
    return Boards(store, seasons, settings.provisional_games)


async def follow_ratings(boards: Boards) -> None:
    """Until cancelled: fold new GameRated events into the boards."""
    failures, kinds = 0, list(GAMES)
    while True:
        try:
            folded = [game for game in kinds if await boards.catch_up(game)]
            # A kind that had more than one batch is looked at again at once; the rest
            # wait for their streams to grow.
            kinds = folded or await boards.news(list(GAMES), WAIT_MS)
            failures = 0
        except Exception as error:  # Redis restarting: try again, nothing was half-done
            failures += 1
            log.warning("ratings boards: %s", error)
            kinds = list(GAMES)
            await asyncio.sleep(min(0.1 * 2**failures, 2.0))


async def rebuild(boards: Boards, progress: bool = False) -> int:
    """Drop every board and fold the ratings streams again from their first event."""
    redis = boards.store.redis
    total = 0
    for game in GAMES:
        pattern = boards.key(game, "*")
        keys = [k async for k in redis.scan_iter(match=pattern, count=1000)]
        for i in range(0, len(keys), 500):
            await redis.delete(*keys[i : i + 500])
        while n := await boards.catch_up(game):
            total += n
            if progress:
                print(f"  {game}: {total} rated games folded", flush=True)
    return total

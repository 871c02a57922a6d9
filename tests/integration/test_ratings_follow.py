"""The ratings boards' follower waits for its streams to grow (one blocking XREAD over
every kind), rather than asking each kind's checkpoint and stream five times a second."""

from __future__ import annotations

import asyncio
import contextlib
import uuid

from services.core.codec import dumps
from services.core.eventstore import EventStore, NewEvent
from services.games import GAMES
from services.kernel.events import payload
from services.ratings.boards import Boards, Seasons
from services.ratings.events import GameRated
from services.ratings.follow import follow_ratings
from services.ratings.rater import ENGINE_VERSION, RATINGS, stream_id

KINDS = list(GAMES)


async def rate_one(store: EventStore, game: str, version: int, player: str) -> None:
    rated = GameRated(
        game_id=f"g-{uuid.uuid4().hex[:8]}",
        game=game,
        ended_ms=1_800_000_000_000,
        players=[player, "bot:1"],
        places=[1, 2],
        before=[[25.0, 8.3], [25.0, 8.3]],
        after=[[27.0, 7.9], [23.0, 7.9]],
        games=[1, 1],
    )
    event = NewEvent(str(uuid.uuid4()), "GameRated", dumps(payload(rated)))
    await store.append(
        stream_id(game),
        RATINGS,
        version,
        rated.game_id,
        [event],
        time_ms=1_800_000_000_000,
        engine_version=ENGINE_VERSION,
    )


async def test_news_names_the_kind_whose_stream_grew(store: EventStore) -> None:
    boards = Boards(store, Seasons(), provisional_games=0)
    for game in KINDS:
        assert await boards.catch_up(game) == 0
    assert await boards.news(KINDS, 20) == []  # nothing new: the read times out

    waiting = asyncio.create_task(boards.news(KINDS, 4000))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    await rate_one(store, KINDS[1], 0, "ada")
    assert await asyncio.wait_for(waiting, 5) == [KINDS[1]]
    assert await boards.catch_up(KINDS[1]) == 1
    assert await boards.news(KINDS, 20) == []  # folded: no longer news


async def test_the_follower_folds_what_is_rated_while_it_waits(store: EventStore) -> None:
    boards = Boards(store, Seasons(), provisional_games=0)
    follower = asyncio.create_task(follow_ratings(boards))
    try:
        await asyncio.sleep(0.1)  # it has looked once and waits on its streams
        await rate_one(store, KINDS[0], 0, "grace")
        await rate_one(store, KINDS[0], 1, "alan")
        for _ in range(100):
            if await boards.size(KINDS[0], "all") == 3:
                break
            await asyncio.sleep(0.05)
        ranked = {player for _, player, _ in await boards.board(KINDS[0], "all", 1, 10)}
        assert ranked == {"grace", "alan", "bot:1"}
    finally:
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follower

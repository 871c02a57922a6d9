"""Finished games written straight into the event store (bot games played in memory),
and a long game to measure replay by."""

from __future__ import annotations

import functools
import sys
import time
import uuid
from typing import Any

from services.core.codec import to_new
from services.core.eventstore import open_store
from services.core.settings import StoreSettings
from services.games import GAMES
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng

CHUNK = 200  # events per append, under the 256 limit
GAME = GAMES["giraffe-raffe"]  # through its face: bench knows no game's internals


def bot_game(seed: str, options: dict[str, object] | None = None) -> Playthrough[Any]:
    p = Playthrough.start(GAME, options or {}, [SeatSpec("bot")] * 3, seed)
    rng, bot = SeededRng(seed, "bots"), GAME.bot("random")
    while not GAME.status(p.state).over:
        seat = GAME.status(p.state).to_act[0]
        p.execute(seat, bot(GAME.view(p.state, seat), GAME.legal_commands(p.state, seat), rng))
    return p


async def populate(settings: StoreSettings, games: int) -> int:
    """Append ``games`` finished games; returns the number of events written."""
    store = await open_store(settings)
    written = 0
    for n in range(games):
        p = bot_game(f"populate-{n}")
        game_id = f"pop{n}"
        events = [to_new(e) for e in p.events]
        for i in range(0, len(events), CHUNK):
            await store.append(
                game_id,
                GAME.name,
                i,
                uuid.uuid4().hex,
                events[i : i + CHUNK],
                time_ms=1,
                engine_version=GAME.engine_version,
            )
        written += len(events)
        if n % 250 == 0:
            print(f"\r  populate: {n}/{games} games", end="", file=sys.stderr)
    print(file=sys.stderr)
    await store.redis.aclose()
    return written


def replay_rate() -> float:
    """Events folded per second, over a long (multi-round) game."""
    p = bot_game("long", {"mode": "longer"})
    start = time.perf_counter()
    for _ in range(20):
        functools.reduce(GAME.evolve, p.events, GAME.initial())
    return 20 * len(p.events) / (time.perf_counter() - start)

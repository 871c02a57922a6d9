"""Real engines on loopback for integration tests: an in-process grpc.aio server over
the test Redis (own key prefix), and a client connected to it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from services.core.server import start_engine
from services.core.settings import ServiceSettings, StoreSettings
from services.core.transport import EngineClient
from services.kernel.game import Game
from services.kernel.rng import SeededRng


@asynccontextmanager
async def running_engine(
    game: Game[Any], store: StoreSettings, multiplexed: bool = False
) -> AsyncIterator[tuple[EngineClient, Any]]:
    """``multiplexed``: the client sends commands over lanes, as the gateway does."""
    settings = ServiceSettings(host="127.0.0.1", port=0, store=store)
    engine = await start_engine(game, settings.model_copy(update={"store": store}))
    client = EngineClient.connect(f"127.0.0.1:{engine.port}", multiplexed=multiplexed)
    try:
        yield client, engine
    finally:
        await client.close()
        await engine.stop(grace=1)


def cid() -> str:
    """A fresh command id."""
    return uuid.uuid4().hex


async def engine_for_test(
    game: Game[Any], redis_url: str, store: StoreSettings
) -> AsyncIterator[EngineClient]:
    """The body of a per-test `engine` fixture: the game's engine on the test Redis."""
    async with running_engine(game, store.model_copy(update={"redis_url": redis_url})) as (
        client,
        _,
    ):
        yield client


Bot = Callable[[dict[str, Any], dict[str, Any], SeededRng], dict[str, Any]]


async def play_out(engine: EngineClient, game_id: str, bots: Sequence[Bot], rng: SeededRng) -> int:
    """Play a game to its end through the engine: whoever must act moves with their bot's
    choice from that seat's view and legal commands, naming the version it saw. Returns
    the number of moves."""
    moves = 0
    while True:
        version, _, status = await engine.view(game_id, -1)
        if status["over"]:
            return moves
        seat = status["to_act"][0]
        _, view, _ = await engine.view(game_id, seat)
        _, legal = await engine.commands(game_id, seat)
        command = bots[seat](view, legal, rng)
        result = await engine.execute(game_id, seat, command, cid(), expected_version=version)
        assert result.version > version and not result.duplicate
        moves += 1

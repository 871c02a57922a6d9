"""Real engines on loopback for integration tests: an in-process grpc.aio server over
the test Redis (own key prefix), and a client connected to it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from services.core.engine_client import EngineClient
from services.core.game import Game
from services.core.server import start_engine
from services.core.settings import ServiceSettings, StoreSettings


@asynccontextmanager
async def running_engine(
    game: Game[Any], store: StoreSettings
) -> AsyncIterator[tuple[EngineClient, Any]]:
    settings = ServiceSettings(host="127.0.0.1", port=0, store=store)
    engine = await start_engine(game, replace(settings, store=store))
    client = EngineClient.connect(f"127.0.0.1:{engine.port}")
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
    async with running_engine(game, replace(store, redis_url=redis_url)) as (client, _):
        yield client

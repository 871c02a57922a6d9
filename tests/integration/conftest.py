"""The engine of the game a service test module names in its GAME, on the test Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.core.settings import StoreSettings
from services.core.transport import EngineClient
from tests.engine_fixtures import engine_for_test


@pytest.fixture
async def engine(
    request: pytest.FixtureRequest, redis_url: str, store_settings: StoreSettings
) -> AsyncIterator[EngineClient]:
    async for client in engine_for_test(request.module.GAME, redis_url, store_settings):
        yield client

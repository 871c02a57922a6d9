"""Open a Redis client for the event store from settings (wiring, not import time)."""

from __future__ import annotations

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from services.core.eventstore.packing import PackedConnection
from services.core.eventstore.store import EventStore, RedisClient
from services.core.settings import StoreSettings


async def redis_client(settings: StoreSettings) -> RedisClient:
    password = settings.redis_password or None  # None keeps a password given in the URL
    if not settings.cluster:
        return Redis.from_url(
            settings.redis_url, password=password, connection_class=PackedConnection
        )
    client = RedisCluster.from_url(
        settings.redis_url, password=password, connection_class=PackedConnection
    )
    # redis-py's async cluster client breaks (a connection with no writer) when many
    # tasks trigger its lazy initialisation at once; initialise it before sharing it.
    await client.initialize()
    return client


async def open_store(settings: StoreSettings) -> EventStore:
    return EventStore(await redis_client(settings), settings)

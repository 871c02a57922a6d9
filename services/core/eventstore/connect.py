"""Open a Redis client for the event store from settings (wiring, not import time)."""

from __future__ import annotations

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster

from services.core.eventstore.store import EventStore, RedisClient
from services.core.settings import StoreSettings


async def redis_client(settings: StoreSettings) -> RedisClient:
    """A client whose calls give up after ``redis_timeout_s`` (a hung Redis answers 503,
    it does not hang every request), and whose pool makes a burst wait for a free
    connection (up to the same time) instead of failing (redis-py's default pool refuses
    at once past 100 connections)."""
    password = settings.redis_password or None  # None keeps a password given in the URL
    timeouts = {
        "socket_timeout": settings.redis_timeout_s,
        "socket_connect_timeout": min(2.0, settings.redis_timeout_s),
    }
    if not settings.cluster:
        pool = BlockingConnectionPool.from_url(
            settings.redis_url,
            password=password,
            max_connections=settings.redis_connections,
            timeout=settings.redis_timeout_s,
            **timeouts,
        )
        return Redis(connection_pool=pool)
    client = RedisCluster.from_url(
        settings.redis_url,
        password=password,
        max_connections=settings.redis_connections,
        **timeouts,
    )
    # redis-py's async cluster client breaks (a connection with no writer) when many
    # tasks trigger its lazy initialisation at once; initialise it before sharing it.
    await client.initialize()
    return client


async def open_store(settings: StoreSettings) -> EventStore:
    return EventStore(await redis_client(settings), settings)

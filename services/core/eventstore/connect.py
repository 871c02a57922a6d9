"""Open a Redis client for the event store from settings (wiring, not import time)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlparse

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.exceptions import RedisError

from services.core.eventstore.sentinel_pool import BlockingSentinelPool, EpochSentinelPool
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
    if settings.redis_sentinels:
        return primary_of(settings, max_connections=settings.redis_connections, **timeouts)
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


def sentinels(settings: StoreSettings) -> list[tuple[str, int]]:
    out = []
    for address in settings.redis_sentinels.split(","):
        host, _, port = address.strip().rpartition(":")
        out.append((host or "127.0.0.1", int(port)))
    return out


def primary_of(settings: StoreSettings, **options: Any) -> Redis:
    """A client of the primary the sentinels name (database and password from the URL or
    RAFFE_REDIS_PASSWORD; sentinels themselves take no password here)."""
    url = urlparse(settings.redis_url)
    database = int(url.path.strip("/") or 0)
    password = settings.redis_password or url.password or None
    timeout = options.get("socket_timeout") or settings.redis_timeout_s
    watchers = Sentinel(  # type: ignore[no-untyped-call, unused-ignore]
        sentinels(settings), sentinel_kwargs={"socket_timeout": min(1.0, timeout)}
    )
    if "max_connections" in options:
        options = {**options, "timeout": settings.redis_timeout_s}
    pool = BlockingSentinelPool if "max_connections" in options else EpochSentinelPool
    client: Redis = watchers.master_for(
        settings.redis_service,
        connection_pool_class=pool,
        db=database,
        password=password,
        **options,
    )
    return client


def listener_client(settings: StoreSettings) -> Redis:
    """A connection of its own for a long pub/sub subscription (outside the pool)."""
    if settings.redis_sentinels:
        return primary_of(settings, socket_keepalive=True)
    return Redis.from_url(
        settings.redis_url, password=settings.redis_password or None, socket_keepalive=True
    )


async def open_store(settings: StoreSettings) -> EventStore:
    return EventStore(await redis_client(settings), settings)


def follows_sentinels(client: Redis) -> bool:
    return isinstance(client.connection_pool, SentinelConnectionPool)


async def primary_moved(listener: Redis, pubsub: PubSub, every_s: float = 1.0) -> None:
    """Returns once the sentinels name a primary other than the one ``pubsub`` listens to
    (a frozen primary keeps its connections open, so nothing else would tell)."""
    pool = listener.connection_pool
    assert isinstance(pool, EpochSentinelPool)  # primary_of's: the newest epoch's primary
    while True:
        await asyncio.sleep(every_s)
        connection = pubsub.connection
        if connection is None:
            continue
        with contextlib.suppress(RedisError, OSError):
            primary = await pool.named_primary()
            if (connection.host, connection.port) != tuple(primary):
                return

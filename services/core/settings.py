"""Settings read from the environment, once, by the service's entry point."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return default if raw in (None, "") else int(raw)


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    return raw.strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class StoreSettings:
    """How the event store reaches Redis and what it accepts."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    # Kept apart from the URL so it can come from a Secret (RAFFE_REDIS_PASSWORD).
    redis_password: str = ""
    cluster: bool = False
    key_prefix: str = "raffe"
    # Fixed per deployment: changing it moves games to other partitions.
    partitions: int = 64
    max_event_bytes: int = 64 * 1024
    max_events_per_append: int = 256
    # A call to Redis gives up after this long (so does waiting for a pooled connection).
    redis_timeout_s: float = 5.0
    redis_connections: int = 200  # per process (per node on a cluster)
    # A finished game is compacted into one archive value this long after it ended, and
    # its archive kept this long (0: for ever).
    retain_finished_s: int = 7 * 24 * 3600
    archive_ttl_s: int = 0

    @classmethod
    def from_env(cls) -> StoreSettings:
        return cls(
            redis_url=os.environ.get("RAFFE_REDIS_URL", cls.redis_url),
            redis_password=os.environ.get("RAFFE_REDIS_PASSWORD", ""),
            cluster=_env_bool("RAFFE_REDIS_CLUSTER", cls.cluster),
            key_prefix=os.environ.get("RAFFE_KEY_PREFIX", cls.key_prefix),
            partitions=_env_int("RAFFE_PARTITIONS", cls.partitions),
            max_event_bytes=_env_int("RAFFE_MAX_EVENT_BYTES", cls.max_event_bytes),
            max_events_per_append=_env_int(
                "RAFFE_MAX_EVENTS_PER_APPEND", cls.max_events_per_append
            ),
            redis_timeout_s=float(os.environ.get("RAFFE_REDIS_TIMEOUT_S") or cls.redis_timeout_s),
            redis_connections=_env_int("RAFFE_REDIS_CONNECTIONS", cls.redis_connections),
            retain_finished_s=_env_int("RAFFE_RETAIN_FINISHED_S", cls.retain_finished_s),
            archive_ttl_s=_env_int("RAFFE_ARCHIVE_TTL_S", cls.archive_ttl_s),
        )


@dataclass(frozen=True)
class ServiceSettings:
    """What every gRPC service needs besides the store."""

    host: str = "127.0.0.1"
    port: int = 50051
    store: StoreSettings = field(default_factory=StoreSettings)
    # Game states kept in memory (engines, projection), by estimated size.
    cache_mb: int = 128

    @classmethod
    def from_env(cls, default_port: int) -> ServiceSettings:
        return cls(
            host=os.environ.get("RAFFE_HOST", cls.host),
            port=_env_int("RAFFE_PORT", default_port),
            store=StoreSettings.from_env(),
            cache_mb=_env_int("RAFFE_CACHE_MB", cls.cache_mb),
        )

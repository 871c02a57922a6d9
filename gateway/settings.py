"""Gateway settings, from the environment (read once by the app factory)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from services.core.settings import StoreSettings
from services.core.targets import engine_targets, projection_target


def _list(name: str, default: str) -> list[str]:
    return [x.strip() for x in os.environ.get(name, default).split(",") if x.strip()]


@dataclass(frozen=True)
class GatewaySettings:
    store: StoreSettings = field(default_factory=StoreSettings)
    engines: dict[str, str] = field(default_factory=engine_targets)
    projection: str = field(default_factory=projection_target)
    cors_origins: list[str] = field(default_factory=lambda: ["*"])
    max_body_bytes: int = 64 * 1024
    rate_per_token: float = 20.0  # requests per second, bursts of twice that
    rate_per_address: float = 100.0
    read_wait_ms: int = 2000  # how long ?min_version waits for the projection
    sse_heartbeat_s: float = 15.0
    # Proxies whose X-Forwarded-For names the client (gateway.addresses); none by default.
    trusted_proxies: list[str] = field(default_factory=list)
    token_ttl_s: int = 30 * 24 * 3600  # a seat token lives this long unless rotated
    creates_per_hour: int = 300  # games and tournaments one address may create an hour
    streams_per_address: int = 20  # live (SSE) streams open at once from one address
    max_streams: int = 10_000  # live streams open at once on this gateway

    @classmethod
    def from_env(cls) -> GatewaySettings:
        return cls(
            store=StoreSettings.from_env(),
            cors_origins=_list("RAFFE_CORS_ORIGINS", "*"),
            max_body_bytes=int(os.environ.get("RAFFE_MAX_BODY_BYTES", 64 * 1024)),
            rate_per_token=float(os.environ.get("RAFFE_RATE_PER_TOKEN", 20)),
            rate_per_address=float(os.environ.get("RAFFE_RATE_PER_ADDRESS", 100)),
            read_wait_ms=int(os.environ.get("RAFFE_READ_WAIT_MS", 2000)),
            sse_heartbeat_s=float(os.environ.get("RAFFE_SSE_HEARTBEAT_S", 15)),
            trusted_proxies=_list("RAFFE_TRUSTED_PROXIES", ""),
            token_ttl_s=int(os.environ.get("RAFFE_TOKEN_TTL_S", 30 * 24 * 3600)),
            creates_per_hour=int(os.environ.get("RAFFE_CREATES_PER_HOUR", 300)),
            streams_per_address=int(os.environ.get("RAFFE_STREAMS_PER_ADDRESS", 20)),
            max_streams=int(os.environ.get("RAFFE_MAX_STREAMS", 10_000)),
        )

"""Settings, read from the environment (``RAFFE_<FIELD>``, e.g. RAFFE_REDIS_URL) by
pydantic-settings: typed, validated at start (a bad value stops the process with the
setting's name), an empty variable meaning the default. The README's settings table
lists them; a test checks every one has a value in the Kubernetes config."""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Env(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="RAFFE_", env_ignore_empty=True, extra="ignore", frozen=True
    )


class StoreSettings(Env):
    """How the event store reaches Redis and what it accepts."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    # Kept apart from the URL so it can come from a Secret (RAFFE_REDIS_PASSWORD).
    redis_password: str = ""
    cluster: bool = Field(False, validation_alias=AliasChoices("RAFFE_REDIS_CLUSTER", "cluster"))
    # Replicated Redis under Sentinel (docs/operations.md): "host:port,host:port" of the
    # sentinels, which name the primary of redis_service (redis_url then gives only the
    # database and password). Empty: redis_url is the one Redis (or a cluster node).
    redis_sentinels: str = ""
    redis_service: str = "raffe"
    # An append is acknowledged only once this many replicas hold it (Redis WAIT), or
    # answered 503 not_replicated after redis_wait_ms (the outcome unknown: send it again
    # with the same command id). 0: acknowledged when the primary has it.
    redis_wait_replicas: int = Field(0, ge=0, le=16)
    redis_wait_ms: int = Field(1000, ge=1, le=60_000)
    key_prefix: str = "raffe"
    # Fixed per deployment: changing it moves games to other partitions.
    partitions: int = Field(64, ge=1, le=16384)
    max_event_bytes: int = Field(64 * 1024, ge=1)
    max_events_per_append: int = Field(256, ge=1)
    # A call to Redis gives up after this long (so does waiting for a pooled connection).
    redis_timeout_s: float = Field(5.0, gt=0)
    redis_connections: int = Field(200, ge=1)  # per process (per node on a cluster)
    # A finished game is compacted into one archive value this long after it ended, and
    # its archive kept this long (0: for ever).
    retain_finished_s: int = Field(7 * 24 * 3600, ge=0)
    archive_ttl_s: int = Field(0, ge=0)
    # How often the projection applies that retention policy to its partitions.
    archive_every_s: float = Field(30.0, gt=0)

    @classmethod
    def from_env(cls) -> StoreSettings:
        return cls()


class RatingSettings(Env):
    """Ratings and leaderboards (docs/ratings.md): seasons of ``season_days`` from
    ``season_start`` (a UTC date); a player is provisional, and off the leaderboards,
    for their first ``provisional_games`` rated games of a kind. Read by the projection
    (which folds the boards) and the gateway alike; changing them takes a rebuild of the
    boards (``python -m services.projection rebuild`` draws them again)."""

    season_start: str = Field("2026-01-01", pattern=r"^\d{4}-\d{2}-\d{2}$")
    season_days: int = Field(30, ge=1)
    provisional_games: int = Field(5, ge=1)


class ServiceSettings(Env):
    """What every gRPC service needs besides the store."""

    host: str = "127.0.0.1"
    port: int = Field(0, ge=0, le=65535)  # 0 in the environment: the service's default
    store: StoreSettings = Field(default_factory=StoreSettings)
    # Game states kept in memory (engines, projection), by estimated size.
    cache_mb: int = Field(128, ge=1)
    # How long a worker's lease on a partition lasts without renewal (projection, runners).
    lease_ms: int = Field(5000, ge=100)
    ratings: RatingSettings = Field(default_factory=RatingSettings)

    @classmethod
    def from_env(cls, default_port: int) -> ServiceSettings:
        settings = cls()
        return settings if settings.port else settings.model_copy(update={"port": default_port})


class BotSettings(Env):
    """The bot runner's: how long a bot waits before each move (a person can follow a
    bot's move, a spectator a bot game, a tournament's page its tables); 0 for
    benchmarks and tests."""

    bot_pace_ms: int = Field(1000, ge=0, le=60_000)
    # Worker processes for the levels that search (services.bots.thinking); 0 decides
    # them on the runner's event loop.
    bot_workers: int = Field(1, ge=0, le=64)
    # A game a bot owes a move and has not moved in for this long counts as stuck (the
    # raffe_bot_games_stuck gauge and its alert); the runner plays such games again.
    bot_stuck_s: float = Field(60.0, gt=0, le=86_400)
    # Quick play (docs/quickplay.md): a player waits at most this long before bots fill
    # the seats nobody near their rating took (read by the gateway too, for its estimate).
    quickplay_bots_after_s: float = Field(30.0, ge=0, le=3600)
    # A turn-based quick-play table fills over hours; bots take its empty seats after this.
    turn_based_bots_after_s: float = Field(86_400.0, ge=0, le=14 * 86_400)
    # A bot account's games against other bot accounts a UTC day (docs/bot-api.md): the
    # matchmaker's tables and the gateway's challenges stop there.
    bot_games_per_day: int = Field(100, ge=0, le=100_000)
    # A seat's player away this long (no live stream open on any gateway) is gone: a bot
    # stands in; at a table of two the other may claim the win after claim_after_s more
    # (docs/fair-table.md). gone_after_s is read by the gateway too, for what it shows.
    gone_after_s: float = Field(120.0, ge=1, le=86_400)
    claim_after_s: int = Field(60, ge=0, le=3600)
    sse_heartbeat_s: float = Field(15.0, gt=0)  # the gateways': a stream's presence mark


class WebhookSettings(Env):
    """Webhooks a player may set (the gateway checks) and the notifier calls: https only
    and never into the server's own networks, unless these say otherwise (tests, a
    receiver on the same host)."""

    webhook_allow_http: bool = False
    webhook_allow_private: bool = False


class MailSettings(Env):
    """How the server sends e-mail (SMTP): the gateway, an address's confirmation; the
    notifier, turns. No host: no e-mail channel."""

    smtp_host: str = ""
    smtp_port: int = Field(25, ge=1, le=65535)
    smtp_security: Literal["none", "starttls", "tls"] = "none"
    smtp_user: str = ""
    smtp_password: str = ""
    mail_from: str = "raffe@localhost"


class PushSettings(Env):
    """Web Push: the server's VAPID key (the raw P-256 scalar, base64url; `make run` makes
    one on first start; none: no web push) and the contact it names to push services."""

    vapid_private_key: str = ""
    vapid_subject: str = "mailto:raffe@localhost"


class NotifierSettings(Env):
    """The notifier's (docs/notifications.md): links to tables, and how deliveries are
    tried: each waits ``webhook_timeout_s`` for an answer, is tried ``webhook_attempts``
    times ``webhook_retry_s`` apart, doubling; a webhook whose deliveries failed
    ``webhook_disable_after`` times in a row is switched off."""

    public_url: str = "http://127.0.0.1:8000"
    webhook_timeout_s: float = Field(5.0, gt=0, le=60)
    webhook_attempts: int = Field(8, ge=1, le=20)
    webhook_retry_s: float = Field(1.0, gt=0, le=3600)
    webhook_disable_after: int = Field(5, ge=1, le=100)
    # A daily digest comes at its hour each such span (a day; tests shorten it).
    digest_every_s: float = Field(86_400.0, ge=1, le=7 * 86_400)
    webhooks: WebhookSettings = Field(default_factory=WebhookSettings)
    mail: MailSettings = Field(default_factory=MailSettings)
    push: PushSettings = Field(default_factory=PushSettings)


def env_names(settings: type[BaseSettings]) -> set[str]:
    """The environment variables a settings class reads (nested settings included)."""
    names: set[str] = set()
    prefix = str(settings.model_config.get("env_prefix", ""))
    for name, info in settings.model_fields.items():
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, BaseSettings):
            names |= env_names(kind)
        elif isinstance(info.validation_alias, AliasChoices):
            names.add(str(info.validation_alias.choices[0]))
        else:
            names.add((prefix + name).upper())
    return names

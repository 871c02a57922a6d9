"""Gateway settings, from the environment (services.core.settings: RAFFE_<FIELD>)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator, model_validator
from pydantic_settings import NoDecode

from services.core.settings import (
    Env,
    MailSettings,
    PushSettings,
    RatingSettings,
    StoreSettings,
    WebhookSettings,
)
from services.targets import GATEWAY_PORT, engine_targets, projection_target

# A comma-separated list in the environment, e.g. RAFFE_CORS_ORIGINS=https://a,https://b
Names = Annotated[list[str], NoDecode]


class GatewaySettings(Env):
    host: str = "127.0.0.1"
    port: int = Field(GATEWAY_PORT, ge=0, le=65535)
    store: StoreSettings = Field(default_factory=StoreSettings)
    ratings: RatingSettings = Field(default_factory=RatingSettings)
    cors_origins: Names = Field(default_factory=lambda: ["*"])
    max_body_bytes: int = Field(64 * 1024, ge=1)
    rate_per_token: float = Field(20.0, gt=0)  # requests per second, bursts of twice that
    rate_per_address: float = Field(100.0, gt=0)
    read_wait_ms: int = Field(2000, ge=0)  # how long ?min_version waits for a version
    # A request unanswered this long (a hung Redis or engine) answers 503; a stream once
    # it has started is not bound by it.
    request_timeout_s: float = Field(3.0, gt=0)
    sse_heartbeat_s: float = Field(15.0, gt=0)
    # How long an idle keep-alive connection stays open. Longer than the idle timeouts of
    # what sits in front (nginx's upstream 60 s, cloud balancers' 60 s): the side that
    # closes first must be the client's, or a request sent as the gateway closes is lost
    # ("server disconnected", a 502 at the balancer). uvicorn's 5 s lost one in CI.
    keep_alive_s: int = Field(75, ge=1, le=3600)
    access_log: bool = True  # a JSON line per request (method, path, status, ms, request id)
    # Proxies whose X-Forwarded-For names the client (gateway.http.addresses); none by default.
    trusted_proxies: Names = Field(default_factory=list)
    token_ttl_s: int = Field(30 * 24 * 3600, ge=1)  # a seat token lives this long
    creates_per_hour: int = Field(300, ge=0)  # games and tournaments per address and hour
    joins_per_address: int = Field(3, ge=1)  # entrants one address adds to a tournament
    joins_per_minute: int = Field(60, ge=1)  # joins of one tournament a minute, in all
    streams_per_address: int = Field(20, ge=1)  # live (SSE) streams at once per address
    max_streams: int = Field(10_000, ge=1)  # live streams at once on this gateway
    session_ttl_s: int = Field(30 * 24 * 3600, ge=60)  # a sign-in lasts this long
    quickplay_bots_after_s: float = Field(30.0, ge=0, le=3600)  # the matchmaker's (bots)
    turn_based_bots_after_s: float = Field(86_400.0, ge=0, le=14 * 86_400)  # (bots) too
    # Turn-based games a player may hold in play at once (docs/turn-based.md); a player's
    # games are found among their most recent RAFFE_MY_GAMES_SCAN.
    turn_based_cap: int = Field(50, ge=1, le=1000)
    # A challenge not answered by then expires (docs/social.md).
    challenge_ttl_s: int = Field(900, ge=10, le=7 * 86_400)
    # Bot accounts (docs/bot-api.md): requests a minute per account, and games against
    # other bot accounts a UTC day (the matchmaker's setting too).
    bot_requests_per_minute: int = Field(120, ge=1, le=100_000)
    bot_games_per_day: int = Field(100, ge=0, le=100_000)
    # A table's chat is kept this long after its last message (docs/social.md).
    chat_retention_s: int = Field(30 * 86_400, ge=60, le=366 * 86_400)
    vacation_days: int = Field(30, ge=0, le=365)  # a player's days off a year (turn-based)
    webhooks: WebhookSettings = Field(default_factory=WebhookSettings)  # players' webhooks
    mail: MailSettings = Field(default_factory=MailSettings)  # addresses' confirmations
    push: PushSettings = Field(default_factory=PushSettings)  # its public key, for pages
    public_url: str = "http://127.0.0.1:8000"  # the site as players open it: mails' links
    my_games_scan: int = Field(1000, ge=10, le=10_000)
    gone_after_s: float = Field(120.0, ge=1, le=86_400)  # the presence sweeper's (bots)
    claim_after_s: int = Field(60, ge=0, le=3600)  # the sweeper's too: shown with presence
    queue_joins_per_window: int = Field(60, ge=1)  # quick-play joins per account and window
    # Per RAFFE_ACCOUNT_WINDOW_S: registrations and sign-in attempts from one address,
    # and sign-in attempts for one account (gateway.accounts.service.AccountLimits).
    account_window_s: int = Field(600, ge=1)
    registrations_per_window: int = Field(10, ge=1)
    sign_ins_per_window: int = Field(30, ge=1)
    sign_ins_per_account: int = Field(10, ge=1)
    # argon2id's cost (services.accounts.passwords): argon2-cffi's defaults
    argon2_time_cost: int = Field(3, ge=1)
    argon2_memory_kib: int = Field(65536, ge=8)

    @model_validator(mode="after")
    def _waits_fit(self) -> GatewaySettings:
        if self.read_wait_ms / 1000 >= self.request_timeout_s:
            raise ValueError("RAFFE_READ_WAIT_MS must be shorter than RAFFE_REQUEST_TIMEOUT_S")
        return self

    @field_validator("cors_origins", "trusted_proxies", mode="before")
    @classmethod
    def _split(cls, raw: object) -> object:
        return [x.strip() for x in raw.split(",") if x.strip()] if isinstance(raw, str) else raw

    @classmethod
    def from_env(cls) -> GatewaySettings:
        return cls()

    # Where the engines and the projection are (services.targets: their formats are
    # not pydantic's, so they are read there).
    @property
    def engines(self) -> dict[str, str]:
        return engine_targets()

    @property
    def projection(self) -> str:
        return projection_target()

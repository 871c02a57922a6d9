"""Where a player wants to be told it is their turn, kept in Redis per player (a hash:
``<prefix>:notify:channels:<player>``), written by the gateway (the account's settings)
and read by the notifier. Settings, not history: erasing an account deletes the hash.

A webhook: its URL, its secret (made by the server, shown to the player once), the body's
format (Raffe's JSON, or a Discord or Slack message), whether it is on, how many
deliveries in a row failed, and the notice a disabled one shows its player."""

from __future__ import annotations

import asyncio
import ipaddress
import secrets
import socket
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

from services.kernel.errors import InvalidArgument

FORMATS = ("raffe", "discord", "slack")
MAX_URL = 2000


def channels_key(prefix: str, player: str) -> str:
    return f"{prefix}:notify:channels:{player}"


@dataclass(frozen=True)
class Webhook:
    url: str
    secret: str
    format: str
    on: bool
    failures: int = 0
    notice: str = ""


def webhook_in(raw: dict[bytes, bytes]) -> Webhook | None:
    """The webhook of a channels hash as HGETALL gives it, or None."""
    got = {k.decode(): v.decode() for k, v in raw.items()}
    if "webhook_url" not in got:
        return None
    return Webhook(
        got["webhook_url"],
        got.get("webhook_secret", ""),
        got.get("webhook_format", "raffe"),
        got.get("webhook_state", "on") == "on",
        int(got.get("webhook_failures", "0")),
        got.get("webhook_notice", ""),
    )


async def webhook_of(redis: Any, prefix: str, player: str) -> Webhook | None:
    raw = await redis.hgetall(channels_key(prefix, player))
    return webhook_in(cast(dict[bytes, bytes], raw))


async def set_webhook(redis: Any, prefix: str, player: str, url: str, fmt: str) -> str:
    """Store (or replace) the player's webhook, on, with a new secret; returns it."""
    secret = "whsec_" + secrets.token_urlsafe(32)
    fields = {
        "webhook_url": url,
        "webhook_secret": secret,
        "webhook_format": fmt,
        "webhook_state": "on",
        "webhook_failures": "0",
        "webhook_notice": "",
    }
    await redis.hset(channels_key(prefix, player), mapping=fields)
    return secret


async def remove_webhook(redis: Any, prefix: str, player: str) -> None:
    fields = ("url", "secret", "format", "state", "failures", "notice")
    await redis.hdel(channels_key(prefix, player), *(f"webhook_{f}" for f in fields))


async def delivered(redis: Any, prefix: str, player: str) -> None:
    await redis.hset(channels_key(prefix, player), "webhook_failures", "0")


async def delivery_failed(
    redis: Any, prefix: str, player: str, disable_after: int, notice: str
) -> bool:
    """Count a delivery that failed for good; True when that switched the webhook off."""
    key = channels_key(prefix, player)
    failures = int(await redis.hincrby(key, "webhook_failures", 1))
    if failures < disable_after:
        return False
    await redis.hset(key, mapping={"webhook_state": "off", "webhook_notice": notice})
    return True


async def check_url(url: str, allow_http: bool, allow_private: bool) -> str:
    """The URL as given, or InvalidArgument: https (http only where allowed), a host, and
    (unless allowed) no address inside the server's own networks: a webhook must not make
    the server call its own services. Checked when a player sets it and at each send."""
    parts = urlsplit(url)
    schemes = ("https", "http") if allow_http else ("https",)
    if len(url) > MAX_URL or parts.scheme not in schemes or not parts.hostname:
        raise InvalidArgument(f"url: an {' or '.join(schemes)} URL with a host", "bad_url")
    if not allow_private:
        found = await addresses(parts.hostname, parts.port)
        if any(private(a) for a in found):
            raise InvalidArgument("url: the host is a private or local address", "bad_url")
    return url


async def addresses(host: str, port: int | None) -> list[str]:
    loop = asyncio.get_running_loop()
    try:
        found = await loop.getaddrinfo(host, port or 443, proto=socket.IPPROTO_TCP)
    except OSError:
        raise InvalidArgument(f"url: no address for {host}", "bad_url") from None
    return [str(info[4][0]) for info in found]


def private(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    return not ip.is_global

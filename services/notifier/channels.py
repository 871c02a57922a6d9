"""Where a player wants to be told it is their turn, kept in Redis per player (a hash:
``<prefix>:notify:channels:<player>``), written by the gateway (the account's settings)
and read by the notifier. Settings, not history: erasing an account deletes the hash.

A webhook: its URL, its secret (made by the server, shown to the player once), the body's
format (Raffe's JSON, or a Discord or Slack message), whether it is on, how many
deliveries in a row failed, and the notice a disabled one shows its player."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import secrets
import socket
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

from services.kernel.errors import InvalidArgument

FORMATS = ("raffe", "discord", "slack")
MAX_URL = 2000
CONFIRM_S = 2 * 86_400  # a confirmation link works this long
ADDRESS = re.compile(r"^[^@\s<>,;]+@[^@\s<>,;]+\.[^@\s<>,;]+$")


def channels_key(prefix: str, player: str) -> str:
    return f"{prefix}:notify:channels:{player}"


def watching_key(prefix: str, game_id: str, seat: int) -> str:
    """Present while a seat's player has the table on a visible page (the web client says
    so, refreshing it): the notifier tells them nothing then."""
    return f"{prefix}:notify:watching:{game_id}:{seat}"


def token_key(prefix: str, kind: str, token: str) -> str:
    """An e-mail link's token -> its player (kind: "confirm" or "unsub")."""
    return f"{prefix}:notify:{kind}:{token}"


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


EMAIL_WHEN = ("each_turn", "daily")  # a mail per turn, or one digest a day


@dataclass(frozen=True)
class Email:
    address: str
    confirmed: bool
    on: bool
    unsubscribe: str  # the token of its one-click unsubscribe link
    when: str = "each_turn"
    hour_utc: int = 8  # a daily digest's hour (UTC; the client converts the player's)


def email_in(raw: dict[bytes, bytes]) -> Email | None:
    got = {k.decode(): v.decode() for k, v in raw.items() if not k.startswith(b"push:")}
    if "email_address" not in got:
        return None
    return Email(
        got["email_address"],
        got.get("email_confirmed") == "1",
        got.get("email_state", "on") == "on",
        got.get("email_unsub", ""),
        got.get("email_when", "each_turn"),
        int(got.get("email_hour", "8")),
    )


async def set_email_schedule(redis: Any, prefix: str, player: str, when: str, hour: int) -> bool:
    """A mail per turn or a daily digest at ``hour`` (UTC); False with no address."""
    key = channels_key(prefix, player)
    if not await redis.hexists(key, "email_address"):
        return False
    await redis.hset(key, mapping={"email_when": when, "email_hour": str(hour)})
    return True


async def email_of(redis: Any, prefix: str, player: str) -> Email | None:
    raw = await redis.hgetall(channels_key(prefix, player))
    return email_in(cast(dict[bytes, bytes], raw))


def check_address(address: str) -> str:
    if len(address) > 254 or not ADDRESS.match(address):
        raise InvalidArgument("address: an e-mail address", "bad_address")
    return address


async def set_email(redis: Any, prefix: str, player: str, address: str) -> str:
    """Store (or replace) the player's address, unconfirmed; returns the token of its
    confirmation link. Its unsubscribe link's token is new too."""
    await forget_email(redis, prefix, player)
    confirm, unsub = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    pipe = redis.pipeline(transaction=True)
    pipe.hset(
        channels_key(prefix, player),
        mapping={
            "email_address": address,
            "email_confirmed": "0",
            "email_state": "on",
            "email_unsub": unsub,
        },
    )
    pipe.set(token_key(prefix, "confirm", confirm), player, ex=CONFIRM_S)
    pipe.set(token_key(prefix, "unsub", unsub), player)
    await pipe.execute()
    return confirm


async def confirm_email(redis: Any, prefix: str, token: str) -> bool:
    player = await redis.getdel(token_key(prefix, "confirm", token))
    if player is None:
        return False
    key = channels_key(prefix, player.decode())
    if not await redis.hexists(key, "email_address"):
        return False
    await redis.hset(key, "email_confirmed", "1")
    return True


async def unsubscribe(redis: Any, prefix: str, token: str) -> bool:
    """The one-click unsubscribe: the address stays, switched off."""
    player = await redis.get(token_key(prefix, "unsub", token))
    if player is None:
        return False
    await redis.hset(channels_key(prefix, player.decode()), "email_state", "off")
    return True


async def known_token(redis: Any, prefix: str, kind: str, token: str) -> bool:
    return bool(await redis.exists(token_key(prefix, kind, token)))


async def forget_email(redis: Any, prefix: str, player: str) -> None:
    """The address and its unsubscribe link's token (a removal, an erasure)."""
    email = await email_of(redis, prefix, player)
    pipe = redis.pipeline(transaction=False)
    if email is not None and email.unsubscribe:
        pipe.delete(token_key(prefix, "unsub", email.unsubscribe))
    fields = ("address", "confirmed", "state", "unsub", "when", "hour")
    pipe.hdel(channels_key(prefix, player), *(f"email_{f}" for f in fields))
    await pipe.execute()


def subscriptions_in(raw: dict[bytes, bytes]) -> list[str]:
    """The Web Push subscriptions (JSON, services.notifier.push) of a channels hash."""
    return [v.decode() for k, v in raw.items() if k.startswith(b"push:")]


async def add_subscription(redis: Any, prefix: str, player: str, sub_id: str, sub: str) -> None:
    await redis.hset(channels_key(prefix, player), f"push:{sub_id}", sub)


async def remove_subscription(redis: Any, prefix: str, player: str, sub_id: str) -> bool:
    return bool(await redis.hdel(channels_key(prefix, player), f"push:{sub_id}"))


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


def delivered(pipe: Any, prefix: str, player: str) -> None:
    """In ``pipe``: a delivery went through: the webhook's failures in a row start again."""
    pipe.hset(channels_key(prefix, player), "webhook_failures", "0")


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

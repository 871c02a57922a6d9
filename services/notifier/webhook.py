"""A "your turn" as a webhook delivery: its body in the channel's format, signed.

The signature (header ``Raffe-Signature: t=<unix seconds>,v1=<hex>``) is HMAC-SHA256 with
the webhook's secret over ``<t>.<body>``; a receiver recomputes it over the raw body,
compares in constant time and refuses a ``t`` older than five minutes (a replay). Each
delivery carries ``Raffe-Delivery``: the turn and channel it tells, the same on every
retry, so a receiver that saw it already can answer 2xx and drop it
(docs/notifications.md)."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import orjson

SIGNATURE = "Raffe-Signature"
DELIVERY = "Raffe-Delivery"


def sign(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify(secret: str, header: str, body: bytes, now_s: int, tolerance_s: int = 300) -> bool:
    """The receiver's check (documented; the tests' receiver runs it)."""
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    try:
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs(now_s - timestamp) > tolerance_s:
        return False
    expected = sign(secret, timestamp, body).split("v1=", 1)[1]
    return hmac.compare_digest(expected, parts.get("v1", ""))


def body_of(fmt: str, message: dict[str, Any]) -> bytes:
    """Raffe's JSON as it is; for Discord and Slack, a message of one line with the link."""
    line = f"{message['text']} {message['url']}"
    if fmt == "discord":
        return orjson.dumps({"content": line})
    if fmt == "slack":
        return orjson.dumps({"text": line})
    return orjson.dumps(message)

"""A "your turn" as a Web Push message: encrypted for the browser's subscription (RFC 8291,
aes128gcm, with http_ece) and sent to its push service with the server's VAPID
signature (RFC 8292, with py_vapid), which the push service checks against the public key
the page subscribed with (GET /v1/notifications/push/key). The browser's service worker
(gateway/web/sw.js) shows it and opens the table when it is clicked."""

from __future__ import annotations

import base64
import hashlib
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import http_ece
import orjson
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

TTL_S = 24 * 3600  # a push service keeps an undelivered message this long


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_private_key() -> str:
    """A VAPID private key, as RAFFE_VAPID_PRIVATE_KEY holds it (the raw scalar, base64url)."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def vapid_of(private: str) -> Vapid02:
    return Vapid02.from_raw(private.encode())


def public_key(vapid: Vapid02) -> str:
    """The applicationServerKey a page subscribes with: the uncompressed point, base64url."""
    raw = vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(raw)


@dataclass(frozen=True)
class Subscription:
    endpoint: str
    p256dh: str  # the browser's public key, base64url
    auth: str  # its auth secret, base64url

    @property
    def id(self) -> str:
        return hashlib.sha256(self.endpoint.encode()).hexdigest()[:16]

    def encoded(self) -> str:
        return orjson.dumps(
            {"endpoint": self.endpoint, "p256dh": self.p256dh, "auth": self.auth}
        ).decode()

    @classmethod
    def decoded(cls, raw: str | bytes) -> Subscription:
        return cls(**orjson.loads(raw))


def encrypted(sub: Subscription, payload: bytes) -> bytes:
    """RFC 8291: aes128gcm for this subscription, from a key pair made for this message."""
    sender = ec.generate_private_key(ec.SECP256R1())
    return bytes(
        http_ece.encrypt(
            payload,
            private_key=sender,
            dh=unb64url(sub.p256dh),
            auth_secret=unb64url(sub.auth),
            version="aes128gcm",
        )
    )


async def push(
    client: aiohttp.ClientSession, vapid: Vapid02, subject: str, sub: Subscription, payload: bytes
) -> int:
    """The push service's status for one message (0: no answer)."""
    parts = urlsplit(sub.endpoint)
    claims: dict[str, Any] = {
        "aud": f"{parts.scheme}://{parts.netloc}",
        "exp": int(time.time()) + 12 * 3600,
        "sub": subject,
    }
    headers = {
        **vapid.sign(claims),
        "TTL": str(TTL_S),
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "Urgency": "normal",
    }
    body = encrypted(sub, payload)
    try:
        async with client.post(
            sub.endpoint, data=body, headers=headers, allow_redirects=False
        ) as answer:
            return answer.status  # its body is not read: the connection closes, if need be
    except (aiohttp.ClientError, TimeoutError):
        return 0

"""Your turn by web push (#52 item 5): a browser's subscription (made here as a browser
makes it: a P-256 key pair and an auth secret) gets one message per turn from the
notifier, encrypted for it (RFC 8291) and signed with the server's VAPID key (RFC 8292).
Chromium's own push needs its vendor's service, out of reach here, so a local push
service receives each request, checks the VAPID signature against the key the page
subscribed with and decrypts the message with the subscription's keys."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import http_ece
import httpx
import orjson
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

from services.notifier.push import b64url, unb64url
from tests.e2e.players import auth
from tests.e2e.receivers import WebhookReceiver, webhook_receiver
from tests.e2e.system import System, running_system
from tests.e2e.test_accounts import register, unique
from tests.e2e.test_notifications import ENV, move, turn_based


@pytest.fixture(scope="module")
def push_service() -> Iterator[WebhookReceiver]:
    with webhook_receiver() as r:
        yield r


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    with running_system(tmp_path_factory.mktemp("push"), **ENV) as s:
        yield s


@pytest.fixture
def http(system: System) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=system.base_url, timeout=20) as client:
        yield client


class Browser:
    """What a browser keeps of its push subscription."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self) -> dict[str, Any]:
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)},
        }

    def read(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        return dict(orjson.loads(plain))


def vapid_checked(headers: dict[str, str], server_key: str, audience: str) -> None:
    """What a push service checks: the JWT is signed by the key the page subscribed with,
    for this push service, not expired."""
    scheme, _, params = headers["Authorization"].partition(" ")
    fields = dict(p.split("=", 1) for p in params.split(","))
    assert scheme == "vapid" and fields["k"] == server_key
    point = unb64url(fields["k"])
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    head, payload, signature = fields["t"].split(".")
    raw = unb64url(signature)  # ES256: r and s, 32 bytes each
    r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
    der = utils.encode_dss_signature(r, s)
    public.verify(der, f"{head}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))  # raises
    claims = orjson.loads(unb64url(payload))
    assert claims["aud"] == audience and claims["exp"] > time.time()
    assert claims["sub"].startswith("mailto:")


def test_each_turn_reaches_the_browser_encrypted_and_signed(
    http: httpx.Client, push_service: WebhookReceiver
) -> None:
    key = http.get("/v1/notifications/push/key")
    assert key.status_code == 200
    server_key = key.json()["public_key"]
    ann = register(http, unique("pusher"), "a long password")
    bo = register(http, unique("pushed"), "a long password")
    browser = Browser(push_service.url + "/push/ann-laptop")
    put = http.put(
        "/v1/accounts/me/notifications/push",
        json=browser.subscription(),
        headers=auth(ann["token"]),
    )
    assert put.status_code == 200, put.text
    state = http.get("/v1/accounts/me/notifications", headers=auth(ann["token"])).json()
    assert state["push"] == [put.json()["id"]]
    gid = turn_based(http, ann, bo)
    (message,) = push_service.wait("/push/ann-laptop", 1)
    assert message.headers["Content-Encoding"] == "aes128gcm" and int(message.headers["TTL"]) > 0
    vapid_checked(message.headers, server_key, push_service.url)
    shown = browser.read(message.body)
    assert (
        shown["url"].endswith(f"/#/games/{gid}") and shown["title"] == "Your turn in Giraffe Raffe."
    )
    move(http, gid, ann)
    move(http, gid, bo)
    assert len(push_service.wait("/push/ann-laptop", 2)) == 2
    time.sleep(1.0)
    assert len(push_service.at("/push/ann-laptop")) == 2


def test_a_subscription_its_push_service_says_is_gone_is_forgotten(
    http: httpx.Client, push_service: WebhookReceiver
) -> None:
    cy = register(http, unique("cy"), "a long password")
    di = register(http, unique("di"), "a long password")
    gone = Browser(push_service.url + "/push/cy-old-phone")
    push_service.failing["/push/cy-old-phone"] = [410]
    http.put(
        "/v1/accounts/me/notifications/push", json=gone.subscription(), headers=auth(cy["token"])
    )
    turn_based(http, cy, di)
    push_service.wait("/push/cy-old-phone", 1)
    for _ in range(100):
        state = http.get("/v1/accounts/me/notifications", headers=auth(cy["token"])).json()
        if not state["push"]:
            break
        time.sleep(0.05)
    assert state["push"] == []
    bad = http.put(
        "/v1/accounts/me/notifications/push",
        json={"endpoint": "ftp://x.example/1", "keys": {"p256dh": "x", "auth": "y"}},
        headers=auth(cy["token"]),
    )
    assert bad.status_code == 422 and bad.json()["code"] == "bad_subscription"

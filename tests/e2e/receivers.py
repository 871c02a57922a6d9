"""Real receivers on loopback for what the system sends out (docs/notifications.md): an
HTTP server that records each webhook delivery, answering as a test tells it to."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson

from services.core.local_redis import free_port


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> Any:
        return orjson.loads(self.body)


@dataclass
class WebhookReceiver:
    url: str
    received: list[Received] = field(default_factory=list)
    # path -> the statuses to answer, in turn (then 200): a receiver that fails first
    failing: dict[str, list[int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def at(self, path: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.path == path]

    def wait(self, path: str, count: int, timeout: float = 30.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.at(path)
            if len(got) >= count:
                return got
            time.sleep(0.02)
        raise AssertionError(f"{path}: {len(self.at(path))} deliveries, not {count}")


@contextmanager
def webhook_receiver() -> Iterator[WebhookReceiver]:
    box: dict[str, WebhookReceiver] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            receiver = box["r"]
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            with receiver.lock:
                receiver.received.append(
                    Received(self.path, dict(self.headers.items()), body, time.monotonic())
                )
                queue = receiver.failing.get(self.path) or []
                status = queue.pop(0) if queue else 200
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    box["r"] = WebhookReceiver(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield box["r"]
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class MailReceiver:
    """An SMTP server on loopback (aiosmtpd) that keeps every mail it is sent."""

    host: str
    port: int
    mails: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def to(self, address: str) -> list[Any]:
        with self.lock:
            return [m for m in self.mails if m["To"] == address]

    def wait(self, address: str, count: int, timeout: float = 30.0) -> list[Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.to(address)
            if len(got) >= count:
                return got
            time.sleep(0.02)
        raise AssertionError(f"{address}: {len(self.to(address))} mails, not {count}")


@contextmanager
def mail_receiver() -> Iterator[MailReceiver]:
    from email import message_from_bytes, policy

    from aiosmtpd.controller import Controller

    box: dict[str, MailReceiver] = {}

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            mail = message_from_bytes(envelope.content, policy=policy.default)
            receiver = box["r"]
            with receiver.lock:
                receiver.mails.append(mail)
            return "250 OK"

    port = free_port()  # aiosmtpd's start checks the port it was given: not 0
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    box["r"] = MailReceiver("127.0.0.1", port)
    try:
        yield box["r"]
    finally:
        controller.stop()

"""Players behind a load balancer, for rollout tests: requests spread over the gateways;
one a gateway could not take (refused, reset, 503 while it drains) goes to the next with
the same body (and so the same command id: never applied twice); live streams resume
from their Last-Event-ID after the retry hint, as a browser's EventSource does."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import httpx

from tests.e2e.players import auth

ATTEMPTS = 400  # 20 s of 50 ms waits: longer than any restart in these tests


class Balancer(httpx.Client):
    """An httpx client whose every request goes round-robin to one of ``gateways``;
    what it had to send again, and why, is counted in ``retried``."""

    def __init__(self, gateways: list[str], timeout: float = 5.0) -> None:
        super().__init__(base_url=gateways[0], timeout=timeout)
        self.gateways = [httpx.URL(g) for g in gateways]
        self.turn = 0
        self.retried: Counter[str] = Counter()

    def send(self, request: httpx.Request, **kwargs: Any) -> httpx.Response:
        for _ in range(ATTEMPTS):
            gateway = self.gateways[self.turn % len(self.gateways)]
            self.turn += 1
            request.url = request.url.copy_with(host=gateway.host, port=gateway.port)
            request.headers["Host"] = f"{gateway.host}:{gateway.port}"
            try:
                response = super().send(request, **kwargs)
            except httpx.TransportError as error:
                self.retried[type(error).__name__] += 1
                time.sleep(0.05)
                continue
            if response.status_code != 503:
                return response
            response.read()
            self.retried[f"503 {response.json().get('code')}"] += 1
            response.close()
            time.sleep(0.05)
        raise AssertionError(f"no gateway took {request.method} {request.url.path}")


class Watcher(threading.Thread):
    """A seat's live stream of one game, kept open through the gateways' restarts: when
    it ends it is opened again (on the next gateway) from the last id seen, after the
    retry hint. ``seen``: version -> when it first arrived."""

    def __init__(self, gateways: list[str], game_id: str, token: str) -> None:
        super().__init__(daemon=True)
        self.http = Balancer(gateways)
        self.url, self.token = f"/v1/games/{game_id}/events/stream", token
        self.seen: dict[int, float] = {}
        self.opened = 0  # streams opened: 1 + every resumption
        self.hinted = 0  # streams that ended with a retry hint (a draining gateway)
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            headers = auth(self.token)
            if self.seen:
                headers["Last-Event-ID"] = str(max(self.seen))
            wait_ms = 0
            try:
                with self.http.stream("GET", self.url, headers=headers, timeout=30) as live:
                    assert live.status_code == 200, live.read()
                    self.opened += 1
                    for line in live.iter_lines():
                        if line.startswith("id:"):
                            self.seen.setdefault(int(line[3:]), time.monotonic())
                        elif line.startswith("retry:"):
                            wait_ms = int(line[6:])
                            self.hinted += 1
                        if self.stop.is_set():
                            return
            except httpx.TransportError:  # cut without a hint: the browser retries too
                wait_ms = wait_ms or 1000
            time.sleep(wait_ms / 1000)

    def wait_for(self, version: int, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while max(self.seen, default=0) < version and time.monotonic() < deadline:
            time.sleep(0.05)
        assert max(self.seen, default=0) >= version, (max(self.seen, default=0), version)

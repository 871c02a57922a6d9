"""The runners' /readyz (services.core.metrics): 503 until their Readiness has seen Redis
answer, 200 then; /metrics answers either way."""

from __future__ import annotations

import httpx
import pytest

from services.core.local_redis import free_port
from services.core.metrics import start_metrics
from services.core.readiness import Readiness


def test_readyz_follows_readiness_and_metrics_do_not(monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    monkeypatch.setenv("RAFFE_METRICS_PORT", str(port))
    readiness = Readiness(redis=None)  # never checked here
    assert start_metrics(readiness) == port
    base = f"http://127.0.0.1:{port}"
    assert httpx.get(f"{base}/readyz").status_code == 503
    readiness.ready = True
    assert httpx.get(f"{base}/readyz").status_code == 200
    metrics = httpx.get(f"{base}/metrics")
    assert metrics.status_code == 200 and b"python_info" in metrics.content

"""Prometheus metrics: each process serves /metrics on RAFFE_METRICS_PORT when set."""

from __future__ import annotations

import os

from prometheus_client import start_http_server


def start_metrics() -> int | None:
    port = os.environ.get("RAFFE_METRICS_PORT")
    if not port:
        return None
    start_http_server(int(port), addr=os.environ.get("RAFFE_METRICS_HOST", "127.0.0.1"))
    return int(port)

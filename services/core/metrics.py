"""Prometheus metrics: each process serves /metrics on RAFFE_METRICS_PORT when set, and
/readyz there too (200 when its Readiness says so, else 503; services.core.readiness)."""

from __future__ import annotations

import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from services.core.readiness import Readiness


def start_metrics(readiness: Readiness | None = None) -> int | None:
    port = os.environ.get("RAFFE_METRICS_PORT")
    if not port:
        return None
    host = os.environ.get("RAFFE_METRICS_HOST", "127.0.0.1")
    server = ThreadingHTTPServer((host, int(port)), _handler(readiness))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True, name="metrics").start()
    return int(port)


def _handler(readiness: Readiness | None) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?")[0] == "/readyz":
                ready = readiness is None or readiness.ready
                body, kind = (b"ready" if ready else b"not ready"), "text/plain"
                self.send_response(200 if ready else 503)
            else:
                body, kind = generate_latest(), CONTENT_TYPE_LATEST
                self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return  # probes every few seconds: not worth a log line each

    return Handler

"""python -m gateway: the REST gateway (uvicorn), which drains on SIGTERM."""

import asyncio
import types

import uvicorn
from fastapi import FastAPI

from gateway.app import create_app
from gateway.settings import GatewaySettings
from services.core.logs import configure_logging
from services.core.loop import tune_gc
from services.core.metrics import start_metrics

# After SIGTERM, how long requests in flight may take before uvicorn cancels them (live
# streams end at once; a Deployment's grace period, 30 s, leaves room for this).
GRACEFUL_S = 10


class DrainingServer(uvicorn.Server):
    """On SIGTERM or SIGINT, first end every live stream with a retry hint and turn
    /readyz to 503 ("draining"), then stop as uvicorn does: take no new connection,
    finish the requests in flight. Without this, a stream open at a rollout held the old
    process until its grace period ran out, and its client learnt of it by a cut."""

    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.app = app

    def handle_exit(self, sig: int, frame: types.FrameType | None) -> None:
        clients = getattr(self.app.state, "clients", None)
        if clients is not None:  # a signal handler: the hub is the loop's to touch
            asyncio.get_running_loop().call_soon_threadsafe(clients.live.drain)
        super().handle_exit(sig, frame)


if __name__ == "__main__":
    configure_logging()
    tune_gc()
    start_metrics()  # on RAFFE_METRICS_PORT, as every process: not on the public port
    settings = GatewaySettings.from_env()
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,
        access_log=False,
        # X-Forwarded-For is read by gateway.http.addresses, from RAFFE_TRUSTED_PROXIES only.
        proxy_headers=False,
        timeout_keep_alive=settings.keep_alive_s,
        timeout_graceful_shutdown=GRACEFUL_S,
    )
    DrainingServer(config, app).run()

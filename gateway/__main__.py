"""python -m gateway: the REST gateway (uvicorn)."""

import uvicorn

from gateway.app import create_app
from gateway.settings import GatewaySettings
from services.core.logs import configure_logging
from services.core.loop import tune_gc
from services.core.metrics import start_metrics

if __name__ == "__main__":
    configure_logging()
    tune_gc()
    start_metrics()  # on RAFFE_METRICS_PORT, as every process: not on the public port
    settings = GatewaySettings.from_env()
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        access_log=False,
        # X-Forwarded-For is read by gateway.addresses, from RAFFE_TRUSTED_PROXIES only.
        proxy_headers=False,
        timeout_keep_alive=settings.keep_alive_s,
    )

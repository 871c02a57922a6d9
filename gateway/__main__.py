"""python -m gateway: the REST gateway (uvicorn)."""

import os

import uvicorn

from gateway.app import create_app
from services.core.logs import configure_logging
from services.core.loop import tune_gc
from services.core.metrics import start_metrics

if __name__ == "__main__":
    configure_logging()
    tune_gc()
    start_metrics()  # on RAFFE_METRICS_PORT, as every process: not on the public port
    uvicorn.run(
        create_app(),
        host=os.environ.get("RAFFE_HOST", "127.0.0.1"),
        port=int(os.environ.get("RAFFE_PORT", "8000")),
        log_config=None,
        access_log=False,
        # X-Forwarded-For is read by gateway.addresses, from RAFFE_TRUSTED_PROXIES only.
        proxy_headers=False,
    )

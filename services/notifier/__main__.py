"""python -m services.notifier: tells players it is their turn at turn-based tables
(docs/notifications.md): a partition worker that enqueues each turn once per channel,
and the sender that delivers what its partitions' outboxes hold."""

import asyncio
import logging
import signal

from services.core.eventstore import open_store
from services.core.logs import configure_logging
from services.core.loop import run
from services.core.metrics import start_metrics
from services.core.readiness import Readiness
from services.core.settings import NotifierSettings, ServiceSettings
from services.games import GAMES
from services.notifier.mail import smtp_of
from services.notifier.sender import Sender, SenderSettings
from services.notifier.worker import NotifyWorker
from services.targets import NOTIFIER_PORT


async def main() -> None:
    configure_logging()
    settings = ServiceSettings.from_env(default_port=NOTIFIER_PORT)
    store = await open_store(settings.store)
    readiness = Readiness(store.redis)  # /readyz on the metrics port
    checking = readiness.start()
    start_metrics(readiness)
    notifier = NotifierSettings()
    worker = NotifyWorker(store, dict(GAMES), settings.lease_ms, notifier.digest_every_s)
    sender = Sender(
        worker,
        SenderSettings(
            public_url=notifier.public_url,
            timeout_s=notifier.webhook_timeout_s,
            attempts=notifier.webhook_attempts,
            retry_s=notifier.webhook_retry_s,
            disable_after=notifier.webhook_disable_after,
            allow_http=notifier.webhooks.webhook_allow_http,
            allow_private=notifier.webhooks.webhook_allow_private,
            smtp=smtp_of(notifier.mail),
            vapid_private_key=notifier.push.vapid_private_key,
            vapid_subject=notifier.push.vapid_subject,
        ),
    )
    loop = asyncio.get_running_loop()

    def stop() -> None:
        worker.stopping.set()
        sender.stopping.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)
    logging.getLogger("notifier").info("running")
    await asyncio.gather(worker.run(), sender.run())
    checking.cancel()
    await store.redis.aclose()
    logging.getLogger("notifier").info("stopped")


if __name__ == "__main__":
    run(main())

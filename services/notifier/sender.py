"""The notifier's sender: makes the deliveries its partitions' outboxes hold.

For each partition whose lease the notifier holds, it reads the outbox (first what a
stopped sender had read and not acknowledged, then what is new) and posts each delivery
to its player's webhook, signed. A 2xx acknowledges and deletes it; anything else is tried
again later, waiting ``retry_s`` doubled each time, up to ``attempts`` times; a delivery
that never got through counts against the webhook, which is switched off, with a notice
its player sees, after ``disable_after`` such deliveries in a row."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson
from prometheus_client import Counter

from services.kernel.errors import InvalidArgument
from services.notifier.channels import (
    Webhook,
    channels_key,
    check_url,
    delivered,
    delivery_failed,
    email_in,
    remove_subscription,
    subscriptions_in,
    webhook_in,
)
from services.notifier.mail import NO_SMTP, Smtp, digest_mail, send, turn_mail
from services.notifier.outbox import Delivery, Outbox
from services.notifier.push import Subscription, push, vapid_of
from services.notifier.webhook import DELIVERY, SIGNATURE, body_of, sign
from services.notifier.worker import NotifyWorker

log = logging.getLogger(__name__)
PENDING_AGAIN_S = 30.0  # how often a sender reads again what its partitions left pending
HOLD_MARGIN_MS = 5000  # a delivery's lock outlasts its request's timeout by this much
# Deliveries on their way at once: well under the Redis pool's connections (each takes
# one for its two round trips), which the partition worker shares.
MAX_SENDING = 64
SENT = Counter(
    "raffe_notifications_total", "Deliveries, by channel and outcome", ["channel", "outcome"]
)


@dataclass(frozen=True)
class SenderSettings:
    public_url: str  # links to a table: <public_url>/#/games/<id>
    smtp: Smtp = NO_SMTP
    vapid_private_key: str = ""  # none: no web push
    vapid_subject: str = "mailto:raffe@localhost"
    timeout_s: float = 5.0
    attempts: int = 8
    retry_s: float = 1.0
    disable_after: int = 5
    allow_http: bool = False
    allow_private: bool = False


@dataclass
class Waiting:
    """A delivery not made yet: when to try again and how often it was tried."""

    entry_id: str
    delivery: Delivery
    tries: int = 0
    at: float = field(default_factory=time.monotonic)
    sent: bool = False  # the receiver took it; only recording that is left


class Sender:
    def __init__(self, worker: NotifyWorker, settings: SenderSettings) -> None:
        self.worker, self.settings = worker, settings
        self.outbox: Outbox = worker.outbox
        self.store = worker.store
        self.stopping = asyncio.Event()
        self.waiting: dict[tuple[int, str], Waiting] = {}
        self.sending: dict[tuple[int, str], asyncio.Task[None]] = {}
        self.fresh: set[int] = set()  # partitions whose pending deliveries were read
        self.token = secrets.token_hex(8)  # this sender, in the locks it holds
        self.pending_read = time.monotonic()
        self.client = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=settings.timeout_s),
            connector=aiohttp.TCPConnector(limit=MAX_SENDING),
            auto_decompress=False,
        )
        key = settings.vapid_private_key
        self.vapid = vapid_of(key) if key else None

    async def run(self) -> None:
        try:
            while not self.stopping.is_set():
                try:
                    busy = await self.step()
                except Exception as error:
                    log.warning("sending failed", extra={"error": str(error)})
                    busy = False
                if not busy:  # no partition yet (leases come with the worker's steps)
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(self.stopping.wait(), 0.2)
        finally:
            if self.sending:  # stopping: what is on its way finishes (its locks, its acks)
                await asyncio.wait(self.sending.values(), timeout=self.settings.timeout_s + 1)
            await self.client.close()

    async def step(self) -> bool:
        """Start the deliveries that are due, up to MAX_SENDING at once, and read more
        while there is room. A delivery is not waited for by the others: one slow
        receiver (its request's timeout is seconds) holds up only its own."""
        owned = set(self.worker.leases.owned)
        for key in [k for k, t in self.sending.items() if t.done()]:
            self.sending.pop(key).result()  # raises what the delivery raised
        for key in [k for k in self.waiting if k[0] not in owned and k not in self.sending]:
            del self.waiting[key]  # another notifier owns it now: it reads it again
        # Newly ours: what its last sender left; and now and then all of ours, for what a
        # sender that held a delivery's lock and stopped left behind.
        again = time.monotonic() - self.pending_read > PENDING_AGAIN_S
        for p in sorted(owned if again else owned - self.fresh):
            await self.outbox.ensure_group(p)
            self._wait(await self.outbox.pending(p))
        if again:
            self.pending_read = time.monotonic()
        self.fresh = owned
        now = time.monotonic()
        room = MAX_SENDING - len(self.sending)
        due = [(k, w) for k, w in self.waiting.items() if w.at <= now and k not in self.sending]
        for key, waiting in due[:room]:
            self.sending[key] = asyncio.create_task(self._send(key, waiting))
        room -= min(room, len(due))
        if room <= 0:  # full: until one finishes
            await asyncio.wait(self.sending.values(), return_when=asyncio.FIRST_COMPLETED)
            return True
        later = [w.at for k, w in self.waiting.items() if k not in self.sending]
        soonest = min(later, default=now + 1.0)
        wait_s = min(1.0, soonest - now, 0.05 if self.sending else 1.0)
        block_ms = int(max(0.01, wait_s) * 1000)
        self._wait(await self.outbox.fresh(sorted(owned), block_ms, count=min(room, 100)))
        return bool(owned)

    def _wait(self, found: list[tuple[int, str, Delivery]]) -> None:
        for partition, entry_id, delivery in found:
            self.waiting.setdefault((partition, entry_id), Waiting(entry_id, delivery))

    async def _send(self, key: tuple[int, str], waiting: Waiting) -> None:
        # Two round trips a delivery besides the request: its lock with its player's
        # channels, then done (made, acknowledged, deleted) in one.
        d, redis = waiting.delivery, self.store.redis
        hold_ms = int(self.settings.timeout_s * 1000) + HOLD_MARGIN_MS
        prefix = self.store.settings.key_prefix
        pipe = redis.pipeline(transaction=False)
        await self.outbox.take(pipe, key[0], d, self.token, hold_ms)
        pipe.hgetall(channels_key(prefix, d.player))
        taken, raw = await pipe.execute()
        if taken != 1:  # made already, or another sender is making it: not ours
            if taken == -1:
                await self.outbox.done(key[0], waiting.entry_id)
            self.waiting.pop(key, None)
            return
        channels = {"email": self._mail, "push": self._push, "webhook": self._hook}
        # Sent before, and recording it failed (Redis away): record it, do not send again.
        outcome = "sent" if waiting.sent else await channels[d.channel](d, raw)
        if outcome == "dropped":  # removed or switched off meanwhile
            await self._finish(key, "dropped")
            return
        if outcome == "sent":
            waiting.sent = True
            pipe = redis.pipeline(transaction=False)
            self.outbox.made(pipe, key[0], d, waiting.entry_id)
            if d.channel == "webhook" and raw.get(b"webhook_failures", b"0") != b"0":
                delivered(pipe, prefix, d.player)
            await pipe.execute()
            self.waiting.pop(key, None)
            SENT.labels(d.channel, "sent").inc()
            return
        waiting.tries += 1
        if waiting.tries < self.settings.attempts:
            waiting.at = time.monotonic() + self.settings.retry_s * 2 ** (waiting.tries - 1)
            SENT.labels(d.channel, "retried").inc()
            return
        if d.channel == "webhook":
            notice = (
                f"switched off after {self.settings.disable_after} deliveries in a row failed "
                f"(the last: {outcome})"
            )
            limit = self.settings.disable_after
            if await delivery_failed(self.store.redis, prefix, d.player, limit, notice):
                log.info("webhook switched off", extra={"player": d.player})
        else:
            log.warning("mail not sent", extra={"player": d.player, "error": outcome})
        await self._finish(key, "failed")

    async def _hook(self, d: Delivery, raw: dict[bytes, bytes]) -> str:
        webhook = webhook_in(raw)
        if webhook is None or not webhook.on:
            return "dropped"
        return await self._post(webhook, d)

    async def _push(self, d: Delivery, raw: dict[bytes, bytes]) -> str:
        """To each of the player's browsers; sent once any took it. A subscription its
        push service says is gone (404, 410) is forgotten."""
        prefix, redis = self.store.settings.key_prefix, self.store.redis
        subs = [Subscription.decoded(s) for s in subscriptions_in(raw)]
        if not subs or self.vapid is None:
            return "dropped"
        message = self.message(d)
        body = orjson.dumps({"title": message["text"], "url": message["url"], "tag": d.game_id})
        statuses = await asyncio.gather(
            *(push(self.client, self.vapid, self.settings.vapid_subject, s, body) for s in subs)
        )
        for sub, status in zip(subs, statuses, strict=True):
            if status in (404, 410):
                await remove_subscription(redis, prefix, d.player, sub.id)
        if any(200 <= s < 300 for s in statuses):
            return "sent"
        if all(s in (404, 410) for s in statuses):
            return "dropped"
        return f"push service: {max(statuses)}"

    async def _mail(self, d: Delivery, raw: dict[bytes, bytes]) -> str:
        email = email_in(raw)
        if email is None or not (email.on and email.confirmed) or not self.settings.smtp.configured:
            return "dropped"
        base = self.settings.public_url.rstrip("/")
        unsubscribe = f"{base}/v1/notifications/email/unsubscribe?token={email.unsubscribe}"
        if d.kind == "digest":
            lines = [self.digest_line(t) for t in d.turns]
            mail = digest_mail(self.settings.smtp, email.address, lines, unsubscribe)
            return await send(self.settings.smtp, mail)
        message = self.message(d)
        text, url = str(message["text"]), str(message["url"])
        action = "Answer it" if d.kind == "challenge" else "Play your move"
        mail = turn_mail(self.settings.smtp, email.address, text, url, unsubscribe, action)
        return await send(self.settings.smtp, mail)

    def digest_line(self, turn: dict[str, Any]) -> str:
        """One game of a digest: its title, the time left and its link."""
        url = f"{self.settings.public_url.rstrip('/')}/#/games/{turn['game_id']}"
        left = ""
        if turn.get("deadline_ms"):
            hours = max(0, int(turn["deadline_ms"] / 1000 - time.time())) // 3600
            left = (
                f" ({hours // 24} d {hours % 24} h left)" if hours >= 24 else f" ({hours} h left)"
            )
        return f"{self.title(turn['game'])}{left}: {url}"

    async def _finish(self, key: tuple[int, str], outcome: str) -> None:
        waiting = self.waiting.pop(key)
        await self.outbox.done(key[0], waiting.entry_id)
        SENT.labels(waiting.delivery.channel, outcome).inc()

    async def _post(self, webhook: Webhook, d: Delivery) -> str:
        """ "sent", or what went wrong, in words for the notice."""
        try:
            await check_url(webhook.url, self.settings.allow_http, self.settings.allow_private)
        except InvalidArgument as error:
            return str(error)
        body = body_of(webhook.format, self.message(d))
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "Raffe-Notifier",
            SIGNATURE: sign(webhook.secret, int(time.time()), body),
            DELIVERY: d.key,
        }
        try:
            async with self.client.post(
                webhook.url, data=body, headers=headers, allow_redirects=False
            ) as answer:
                status = answer.status  # its body is not read: the connection closes, if need be
        except (aiohttp.ClientError, TimeoutError) as error:
            return f"{type(error).__name__}"
        return "sent" if 200 <= status < 300 else f"HTTP {status}"

    def title(self, game: str) -> str:
        spec = self.worker.games.get(game)
        return getattr(spec, "title", "") or game

    def message(self, d: Delivery) -> dict[str, object]:
        base = self.settings.public_url.rstrip("/")
        # A challenge is answered in the lobby; a turn is played at its table.
        url = f"{base}/#/" if d.kind == "challenge" else f"{base}/#/games/{d.game_id}"
        title = self.title(d.game)
        text = {
            "turn": f"Your turn in {title}.",
            "half": f"Half your time for this move in {title} is gone.",
            "tenth": f"A tenth of your time for this move in {title} is left.",
            "challenge": f"You are challenged to {title}: answer in the lobby.",
        }[d.kind]
        kinds = {"turn": "your_turn", "challenge": "challenge"}
        return {
            "type": kinds.get(d.kind, "reminder"),
            "text": text,
            "url": url,
            "game_id": d.game_id,
            "game": d.game,
            "seat": d.seat,
            "version": d.version,
            "deadline_ms": d.deadline_ms or None,
            "delivery": d.key,
            "reminder": d.kind if d.kind in ("half", "tenth") else None,
        }

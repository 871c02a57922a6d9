"""The notifier's partition worker: follows the attended logs (a turn-based game has a
clock, so it is attended), finds the turns each append of a turn-based game starts, and
enqueues a "your turn" for each channel the seat's player has on (services.notifier.outbox).

A game is known to be turn-based from its GameCreated, recorded in the partition's
``notify:turn-based`` hash until its GameEnded, so later batches ask Redis once per batch
rather than keep anything of idle games in memory. A turn-based game whose events are in a
batch is read from its stream and folded: moves in such games are days apart, and holding
their states between moves would cost memory for every idle game."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from dataclasses import asdict
from typing import Any, cast

import orjson
from prometheus_client import Counter

from services.challenges.streams import CHALLENGE
from services.core.eventstore import EventStore, StoredEvent
from services.core.seating import seated_players
from services.core.worker import NOTIFY_GROUP, CheckpointedWorker
from services.kernel.game import Game
from services.notifier.channels import (
    channels_key,
    email_in,
    subscriptions_in,
    watching_key,
    webhook_in,
)
from services.notifier.digest import Digests, next_digest_ms, turn_of
from services.notifier.outbox import Delivery, Outbox
from services.notifier.turns import Turn, appends, due_turns, still_due

log = logging.getLogger(__name__)
ENQUEUED = Counter("raffe_notifications_enqueued_total", "Turns told, by channel", ["channel"])
QUIET = Counter("raffe_notifications_quiet_total", "Turns not told: the table was in view")


class NotifyWorker(CheckpointedWorker):
    # A batch's games are read and folded concurrently, this many at once: unbounded, a
    # batch of thousands (a restart's catch-up, 100,000 games made at once) waited past the
    # Redis pool's timeout for connections, failed whole and came again, for ever.
    games_at_once = 32
    batch = 200  # log entries a partition's batch holds (the histories read are in memory)

    def __init__(
        self,
        store: EventStore,
        games: dict[str, Game[Any]],
        lease_ms: int,
        digest_every_s: float = 86_400,
    ) -> None:
        super().__init__(store, NOTIFY_GROUP, lease_ms)
        self.games = games
        self.outbox = Outbox(store)
        self.digests = Digests(store, self.outbox, digest_every_s)
        self._folding = asyncio.Semaphore(self.games_at_once)
        self._reminded = 0.0

    def turn_based_key(self, partition: int) -> str:
        return f"{self.store.keys.tag(partition)}:notify:turn-based"

    async def work(self, partition: int, events: list[StoredEvent]) -> bool:
        by_game: dict[str, list[StoredEvent]] = defaultdict(list)
        challenged = 0
        for e in events:
            if e.game_type in self.games:
                by_game[e.game_id].append(e)
            elif e.game_type == CHALLENGE and e.type == "ChallengeIssued":
                challenged += await self._challenged(partition, e)
        if not by_game:
            return challenged > 0
        games = await self._turn_based(partition, by_game)
        told = await asyncio.gather(*(self._game(partition, g, by_game[g]) for g in games))
        return sum(told) > 0

    async def _game(self, partition: int, game_id: str, batch: list[StoredEvent]) -> int:
        """One game's turns in this batch, told in order (games go concurrently: each is
        a few Redis round trips, which they share the waiting for)."""
        told = 0
        async with self._folding:
            for turn in await self._turns(game_id, batch):
                told += await self._tell(partition, turn)
        return told

    async def _turn_based(self, partition: int, by_game: dict[str, list[StoredEvent]]) -> list[str]:
        """The batch's games that are played turn-based, known from their GameCreated."""
        key, redis = self.turn_based_key(partition), self.store.redis
        ids = list(by_game)
        made = {
            game_id: "1"
            for game_id, evs in by_game.items()
            for e in evs
            if e.type == "GameCreated" and _speed(e) == "turn_based"
        }
        if made:  # one write for the batch's new games (one each was most of a batch's wait)
            await redis.hset(key, mapping=cast(Any, made))
        known = await redis.hmget(key, ids)
        found = [g for g, k in zip(ids, known, strict=True) if k]
        ended = [g for g in found if any(e.type == "GameEnded" for e in by_game[g])]
        if ended:
            await redis.hdel(key, *ended)
        return found

    async def _turns(self, game_id: str, batch: list[StoredEvent]) -> list[Turn]:
        game = self.games[batch[0].game_type]
        history = await self.store.read_game_range(game_id, 0, batch[-1].version)
        return due_turns(game, game_id, history, appends(batch))

    def reminders_key(self, partition: int) -> str:
        return f"{self.store.keys.tag(partition)}:notify:reminders"

    def watching_key(self, turn: Turn) -> str:
        """Set by the gateway while the seat's player has the table on a visible page."""
        return watching_key(self.store.settings.key_prefix, turn.game_id, turn.seat)

    async def _schedule(self, partition: int, turn: Turn) -> None:
        """Reminders when half the turn's bank is gone and when a tenth is left."""
        if not (turn.deadline_ms and turn.since_ms):
            return
        span = turn.deadline_ms - turn.since_ms
        at = {"half": turn.since_ms + span // 2, "tenth": turn.since_ms + span * 9 // 10}
        member = {orjson.dumps({**asdict(turn), "kind": k}): when for k, when in at.items()}
        await self.store.redis.zadd(self.reminders_key(partition), member, nx=True)

    async def tick(self) -> None:
        """Once a second: the reminders and daily digests come due in the partitions this
        notifier owns (one round trip for all of them), a reminder sent only if its turn
        is still the seat's."""
        now = time.monotonic()
        if now - self._reminded < 1.0:
            return
        self._reminded = now
        now_ms = int(time.time() * 1000)
        owned = sorted(self.leases.owned)
        pipe = self.store.redis.pipeline(transaction=False)
        for partition in owned:
            pipe.zrangebyscore(self.reminders_key(partition), "-inf", now_ms, start=0, num=100)
            self.digests.due(pipe, partition, now_ms)
        found = await pipe.execute()
        for i, partition in enumerate(owned):
            reminders, digests = cast(list[bytes], found[2 * i]), found[2 * i + 1]
            if digests:
                await self._digests(partition, now_ms, self.digests.due_of(digests))
            for raw in reminders:
                fields = orjson.loads(raw)
                kind = fields.pop("kind")
                turn = Turn(**fields)
                if await self._due_still(turn):
                    await self._tell(partition, turn, kind)
                await self.store.redis.zrem(self.reminders_key(partition), raw)

    async def _digests(self, partition: int, now_ms: int, due: list[tuple[str, int]]) -> None:
        """The daily digests due in a partition: one mail each with the turns gathered
        that are still the player's (none left: no mail)."""
        prefix = self.store.settings.key_prefix
        for player, at in due:
            read = await self.digests.turns(partition, player)
            turns = [t for t in map(turn_of, read.values()) if await self._due_still(t)]
            raw = await self.store.redis.hgetall(channels_key(prefix, player))
            email = email_in(cast(dict[bytes, bytes], raw))
            hour = email.hour_utc if email else 8
            next_ms = next_digest_ms(now_ms, hour, self.digests.every_s)
            wanted = email is not None and email.when == "daily" and bool(turns)
            turns.sort(key=lambda t: (t.deadline_ms or 2**62, t.game_id))
            digest = Delivery.digest(player, at, turns) if wanted else None
            if await self.digests.take(partition, player, read, digest, next_ms):
                ENQUEUED.labels("email").inc()

    async def _due_still(self, turn: Turn) -> bool:
        history = await self.store.read_game(turn.game_id)
        return bool(history) and still_due(self.games[turn.game], history, turn)

    async def _challenged(self, partition: int, e: StoredEvent) -> int:
        """A player is challenged (docs/social.md): told on each channel they have on,
        once (the delivery's key is the challenge's), wherever they are."""
        issued = orjson.loads(e.payload)
        player = str(issued["invitee"])
        raw = await self.store.redis.hgetall(channels_key(self.store.settings.key_prefix, player))
        told = 0
        for channel in _channels_on(cast(dict[bytes, bytes], raw)):
            delivery = Delivery(
                channel,
                player,
                e.game_id,
                str(issued["game"]),
                -1,
                e.version,
                int(issued["expires_ms"]),
                "challenge",
            )
            if await self.outbox.enqueue(partition, delivery):
                ENQUEUED.labels(channel).inc()
                told += 1
        return told

    async def _tell(self, partition: int, turn: Turn, kind: str = "turn") -> int:
        # Seated at creation (GameCreated says), else by a claim (the seats hash, written
        # by the gateway just after the game was made: a creation's turn reads the event).
        player = turn.player or (await seated_players(self.store, turn.game_id)).get(turn.seat)
        if not player:
            return 0  # a seat nobody's account holds (a token only): nobody to tell
        prefix = self.store.settings.key_prefix
        pipe = self.store.redis.pipeline(transaction=False)  # one round trip for both
        pipe.hgetall(channels_key(prefix, player))
        pipe.exists(self.watching_key(turn))
        raw, watched = cast(tuple[dict[bytes, bytes], int], tuple(await pipe.execute()))
        webhook, email = webhook_in(raw), email_in(raw)
        on = {
            "webhook": webhook is not None and webhook.on,
            "email": email is not None and email.confirmed and email.on,
            "push": bool(subscriptions_in(raw)),
        }
        if not any(on.values()):
            return 0  # nowhere to tell: no reminders either (they would cost memory)
        if kind == "turn":
            await self._schedule(partition, turn)
        if watched:
            QUIET.inc()  # the player has the table in front of them: nothing to tell
            return 0
        told = 0
        if on["email"] and email is not None and email.when == "daily":
            on["email"] = False  # gathered for the day's digest instead (reminders too)
            if kind == "turn":
                now_ms = int(time.time() * 1000)
                await self.digests.add(player, turn, email.hour_utc, now_ms)
        for channel in (c for c, wanted in on.items() if wanted):
            if await self.outbox.enqueue(partition, Delivery.of(channel, player, turn, kind)):
                ENQUEUED.labels(channel).inc()
                told += 1
        return told


def _channels_on(raw: dict[bytes, bytes]) -> list[str]:
    """The channels a player has on (an e-mail address once confirmed; a daily digest
    takes only turns, so a challenge still goes by mail at once)."""
    webhook, email = webhook_in(raw), email_in(raw)
    on = {
        "webhook": webhook is not None and webhook.on,
        "email": email is not None and email.confirmed and email.on,
        "push": bool(subscriptions_in(raw)),
    }
    return [channel for channel, wanted in on.items() if wanted]


def _speed(created: StoredEvent) -> str:
    options = orjson.loads(created.payload).get("options") or {}
    return str(options.get("speed", "realtime"))

"""Live events over Server-Sent Events, fanned out once per event, not once per viewer.

Each gateway has one LiveHub. The append script publishes every new version on the game
stream's own name; the hub listens on one dedicated Redis connection (no pooled
connection is held by any viewer), to the games someone here watches or waits on only
(gateway.live.channels: each game's channel while held). For each game someone watches, the
hub keeps the game's state, folded from its stream. When a new
version is announced it reads the new events once, folds them, and for each audience
that watches (each seat, spectators) redacts them once (the engine's own redaction,
services.core.redaction) and puts the frames on every such viewer's queue. A viewer
costs memory, not engine calls or Redis reads.

A viewer who (re)connects with Last-Event-ID first gets what it missed, read from the
stream, then the live frames: registration and catch-up happen under the game's lock,
so nothing is lost or sent twice. If the listening connection drops (Redis restarting),
the hub resubscribes and reads every watched game's stream again from where it was.

The same announcements wake readers waiting for a version (``wait_version``): a view
read with ``min_version`` is answered as soon as that version exists, with no polling.

Admission is bounded: at most ``streams_per_address`` streams per client address (429)
and ``max_streams`` in all (503), both with Retry-After.

A viewer that asks for views (``views=1``, the web client) also gets, after each batch
of events, a ``view`` frame: its audience's view and legal commands at the new version,
drawn once per batch and audience from the state the hub folded anyway, so a table
redraws another player's move from the stream alone (it used to wait, then read the
view and the commands back: docs/decisions, "streams carry views").

A seat's stream lives no longer than the token it was opened with (directly or through
a ticket the token minted): it ends when the token expires, and when the token is
revoked on any gateway (gateway.accounts.tokens publishes the revoked hash; the hub hears it on
the same pub/sub connection and ends those streams). After a resubscription, when a
revocation may have been missed, every open seat stream's token is checked again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import Counter
from collections.abc import AsyncGenerator, Coroutine, Iterator, Mapping
from typing import Any

import orjson
from prometheus_client import Histogram
from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from gateway.accounts.tokens import Caller, SeatTokens, revoked_channel
from gateway.http.problems import Problem
from gateway.live.admission import Admission
from gateway.live.beats import Beats
from gateway.live.channels import GameChannels, chat_channel, game_of
from gateway.live.delay import Delays, Held
from gateway.live.feeds import AccountFeeds
from gateway.live.frames import drained, frame, view_frame
from gateway.live.revocation import TokenStreams
from gateway.live.versions import VersionWaiters
from gateway.live.watched import Viewer, Watched
from services.accounts.feed import feed_channel
from services.core.codec import to_domain
from services.core.eventstore import EventStore, StoredEvent
from services.core.eventstore.announce import parse_announcement
from services.core.eventstore.connect import follows_sentinels, primary_moved
from services.core.gamestate import fold
from services.core.presence import Presence
from services.core.redaction import current_shapes, nothing_hidden, redact_stored
from services.kernel.game import SPECTATOR, Game

log = logging.getLogger(__name__)
# From a command's time (its events' time_ms, the engine's clock) to its frames being
# queued for a watching audience here: what the "push latency" alert watches.
PUSH = Histogram(
    "raffe_live_push_seconds",
    "From a command to its live frames queued for viewers",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
RESUBSCRIBE_S = (0.1, 2.0)  # backoff after the listening connection fails


class Batch:
    """New events of a watched game on their way to its audiences: parsed once for its
    fold and all its redactions (redaction reads the events, not their bytes), whether
    the game is over asked once, and each event an audience sees as stored framed once
    (most hide nothing, so every audience sends the same frame, and a list no audience's
    redaction changed is framed once for all of them)."""

    def __init__(self, game: Game[Any], events: list[StoredEvent]) -> None:
        self.game = game
        self.events = current_shapes(game, events)
        self.typed = [to_domain(e) for e in self.events]
        self.over = False  # set once folded (settle, in LiveHub._hand_out)
        self.public = False  # every audience sees the events as stored (set with ``over``)
        # By the frame's event: the event itself is kept with its frame, so its id is
        # not reused by another audience's redacted copy while the batch lives.
        self._framed: dict[int, tuple[StoredEvent, bytes]] = {}
        self._all: bytes | None = None  # ``events`` framed, once some audience sees them

    def settle(self, over: bool) -> None:
        """Whether the game is over after the batch, and so whether it hides anything
        from anyone (asked once, not once an audience)."""
        self.over = over
        self.public = not over and nothing_hidden(self.game, self.events)

    def redacted(self, state: Any, seat: int) -> list[StoredEvent]:
        if self.public:
            return self.events
        return redact_stored(self.game, state, self.events, seat, self.typed, self.over)

    def framed(self, events: list[StoredEvent]) -> bytes:
        if events is self.events:  # nothing hidden from this audience
            if self._all is None:
                self._all = self._frames(events)
            return self._all
        return self._frames(events)

    def _frames(self, events: list[StoredEvent]) -> bytes:
        out = []
        for e in events:
            known = self._framed.get(id(e))
            if known is None or known[0] is not e:
                known = self._framed[id(e)] = (e, frame(e))
            out.append(known[1])
        return b"".join(out)


class LiveHub:
    def __init__(
        self,
        store: EventStore,
        games: Mapping[str, Game[Any]],
        listener: Redis,
        streams_per_address: int = 20,
        max_streams: int = 10_000,
        tokens: SeatTokens | None = None,
        presence: Presence | None = None,
        delays: Delays | None = None,
        heartbeat_s: float = 15.0,
    ) -> None:
        self.store, self.games, self.listener = store, games, listener
        self.presence = presence
        self.delays = delays
        # Presence writes and delayed spectators' releases in flight (kept referenced).
        self._tasks: set[asyncio.Task[None]] = set()
        self.streams_per_address, self.max_streams = streams_per_address, max_streams
        self.tokens = tokens
        self.watched: dict[str, Watched] = {}
        self.streams_of = TokenStreams(tokens)  # seat streams by token (revocation)
        self.open_streams: Counter[str] = Counter()
        self._task: asyncio.Task[None] | None = None
        self.channels = GameChannels(store.keys.game)
        self.versions = VersionWaiters(store, self.channels)
        self.draining = False
        self._chat_channel = chat_channel(store.settings.key_prefix)
        self.feeds = AccountFeeds()  # account streams (docs/bot-api.md), by player
        self._feed_channel = feed_channel(store.settings.key_prefix)
        self.beats = Beats(heartbeat_s, self._viewers, presence, self._reopen)
        self._beating: asyncio.Task[None] | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._listen())
        self._beating = asyncio.create_task(self.beats.run())

    async def close(self) -> None:
        for task in (self._task, self._beating):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self.listener.aclose()

    def drain(self) -> None:
        """The process is stopping (SIGTERM): end every stream with a retry hint, so each
        client resumes from its Last-Event-ID on another replica; open no new one."""
        self.draining = True
        for watched in self.watched.values():
            for viewers in watched.viewers.values():
                for viewer in viewers:
                    viewer.end(drained())
        self.feeds.end_all(drained())

    # -- viewers -----------------------------------------------------------------------

    def admit(self, address: str) -> Admission:
        """Count a new stream against its address and the total, or refuse it; returns
        what to call (once or more) when the stream is over."""
        if self.draining:
            raise Problem(503, "draining", "this gateway is stopping; try again", retry_after=1)
        if self.open_streams[address] >= self.streams_per_address:
            raise Problem(429, "too_many_streams", "too many live streams from here", retry_after=5)
        if self.open_streams.total() >= self.max_streams:
            raise Problem(503, "streams_full", "no room for another live stream", retry_after=5)
        return Admission(self.open_streams, address)

    async def frames(
        self,
        game_id: str,
        game_type: str,
        who: Caller,
        after: int,
        views: bool = False,
    ) -> AsyncGenerator[bytes, None]:
        """Every event after version ``after`` as ``who`` may see it, then each new one
        as it is appended, as SSE bytes (a ping comment when it was quiet for a heartbeat:
        gateway.live.beats); ends after the game's last event (GameEnded), or when
        ``who``'s token expires or is revoked."""
        watched = self.watched.get(game_id)
        if watched is None:
            game = self.games[game_type]
            watched = self.watched[game_id] = Watched(game, game.initial())
        # Joining until registered: a stream leaving meanwhile must not drop the game from
        # the hub, or this one would register on a copy nobody fans out to (it stalled).
        watched.joining += 1
        joined = False
        seat = who.seat
        viewer = Viewer(seat, who.token_hash, who.expires_at, views, who.player_id, game_id=game_id)
        self.streams_of.add(viewer)
        mark = uuid.uuid4().hex[:12] if self.presence is not None and seat >= 0 else ""
        try:
            # Subscribed before the catch-up read, so no version falls between the two
            # (held from hold's first step, so a stream cancelled meanwhile releases it).
            await self.channels.hold(game_id)
            first, ended = await self._join(game_id, watched, viewer, after)
            watched.joining -= 1
            joined = True
            if mark:  # registered first: the stream hears its own arrival too
                slow = getattr(watched.state, "turn_based", False)  # a seated game's table
                await self._mark(self.presence.opened(game_id, seat, mark, slow))  # type: ignore[union-attr]
                viewer.mark = mark  # the beats refresh it from now on
            if first:
                yield first
                if ended:
                    return
            del first  # a stream lives for hours: its catch-up goes now
            # Pings and the token's expiry come on the queue too (gateway.live.beats).
            while (item := await viewer.queue.get()) is not None:
                yield item[0]
                if item[1]:
                    return
        finally:
            if not joined:
                watched.joining -= 1
            viewer.mark = ""  # the beats no longer refresh (nor reopen) it
            if mark:  # in a task: a cancelled stream's generator may not await any more
                self._closed(game_id, seat, mark, watched.game.status(watched.state).over)
            watched.viewers[seat].discard(viewer)
            if seat == SPECTATOR and not watched.viewers[seat] and watched.spectators:
                if watched.spectators.timer is not None:
                    watched.spectators.timer.cancel()
                watched.spectators = None  # nobody here watches late: nothing to hold
            if watched.empty and self.watched.get(game_id) is watched:
                del self.watched[game_id]
            self.streams_of.remove(viewer)
            self.channels.release(game_id)

    async def _join(
        self, game_id: str, watched: Watched, viewer: Viewer, after: int
    ) -> tuple[bytes, bool]:
        """Register ``viewer`` on the game, with what it missed after version ``after``
        (and its view, if it asked for views): the frames it gets first, and whether
        they end the game. Apart from the stream's generator, which lives for hours:
        what the catch-up read and drew (events, an older state, a view) is let go once
        sent, not held by its frame."""
        seat = viewer.seat
        delay = await self.delays.of(game_id) if self.delays and seat == SPECTATOR else None
        async with watched.lock:
            await self._advance(game_id, watched)  # viewers already there get it too
            late = await self._spectators(game_id, watched) if delay else None
            until = late.shown if late else watched.version
            missed = await self.store.read_game_range(game_id, after, until)
            backlog = redact_stored(watched.game, watched.state, missed, seat)
            watched.viewers[seat].add(viewer)
            # A version announced while nobody was registered yet (drains skip a game
            # nobody watches) must still reach this viewer.
            self._drain_if_behind(game_id, watched)
            state = late.state if late else watched.state
            current = (
                view_frame(game_id, watched.game, state, until, seat)
                if viewer.views and until
                else b""
            )
        ended = bool(backlog) and backlog[-1].type == "GameEnded"
        return b"".join(frame(e) for e in backlog) + current, ended

    def _viewers(self) -> Iterator[Viewer]:
        """Every game stream held here (the beats' round)."""
        for watched in self.watched.values():
            for viewers in watched.viewers.values():
                yield from viewers

    async def _reopen(self, viewer: Viewer) -> None:
        """The sweeper closed an open stream's presence (this gateway was frozen for
        longer than marks stay fresh): it is open again."""
        assert self.presence is not None
        await self.presence.opened(viewer.game_id, viewer.seat, viewer.mark)

    def _closed(self, game_id: str, seat: int, mark: str, over: bool) -> None:
        """A seat's stream ended: its player is away, unless the game is over (nobody is
        waited for then: the seat's presence is forgotten)."""
        assert self.presence is not None
        p = self.presence
        write = p.forget(game_id, seat, mark) if over else p.closed(game_id, seat, mark)
        task = asyncio.create_task(self._mark(write))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _mark(self, write: Coroutine[Any, Any, None]) -> None:
        """A presence write; Redis failing it must not end the stream (it is shown late)."""
        try:
            await write
        except RedisError as error:
            log.warning("presence not written", extra={"error": str(error)})

    def _presence(self, data: bytes) -> None:
        """A seat's presence changed (on any gateway): a ``presence`` frame to every
        stream of the game here."""
        with contextlib.suppress(ValueError, KeyError, TypeError):
            watched = self.watched.get(orjson.loads(data)["game_id"])
            if watched is not None:
                f = (b"event: presence\ndata: %s\n\n" % data, False)
                for viewers in watched.viewers.values():
                    for viewer in viewers:
                        viewer.push([f])

    def _chat(self, data: bytes) -> None:
        """A table's chat message (gateway.chat, on any gateway): a ``chat`` frame to the
        streams of that table that may see it: the players' to its seats, the
        spectators' to its spectators, both to everyone once the game is over; never
        to anyone kept apart from its author by a block."""
        with contextlib.suppress(ValueError, KeyError, TypeError):
            said = orjson.loads(data)
            watched = self.watched.get(said["game_id"])
            if watched is None:
                return
            message, hidden = said["message"], set(said["hide_from"])
            over = watched.game.status(watched.state).over
            frame = (b"event: chat\ndata: %s\n\n" % orjson.dumps(message), False)
            for seat, viewers in watched.viewers.items():
                seated = seat != SPECTATOR
                if not over and seated != (message["audience"] == "players"):
                    continue
                if seat in said["hide_seats"]:
                    continue
                for viewer in viewers:
                    if viewer.player_id not in hidden:
                        viewer.push([frame])

    async def _advance(self, game_id: str, watched: Watched) -> list[StoredEvent]:
        """Read what the stream holds past the watched version, fold it and give it to
        every viewer, once per audience (the caller holds the lock). Whoever reads new
        events hands them out: nobody may fold events some viewer has not been given."""
        new = watched.take_offered()
        if new is None and watched.version and watched.version >= watched.announced:
            # Heard up to date (a subscribed game someone here watches): whatever is
            # appended next is announced and handed out to whoever registers now.
            new = []
        elif new is None:  # not all announced with their events: read them
            new = await self.store.read_game_range(game_id, watched.version, None)
        self._hand_out(game_id, watched, new)
        return new

    def _hand_out(self, game_id: str, watched: Watched, new: list[StoredEvent]) -> None:
        """Fold new events and give them to every viewer, once per audience."""
        if not new:
            return
        batch = Batch(watched.game, new)
        watched.fold(batch.events, batch.typed)
        batch.settle(watched.game.status(watched.state).over)
        late = watched.spectators
        pushed = False
        for seat, viewers in list(watched.viewers.items()):
            if viewers and not (late is not None and seat == SPECTATOR):
                self._fan_out(game_id, watched, batch, seat, viewers)
                pushed = True
        if pushed:  # once a move: every audience's frames were queued just now
            PUSH.observe(max(0.0, time.time() - new[-1].time_ms / 1000))
        if late is not None:
            late.add(new)
            self._release(game_id, watched)

    async def _spectators(self, game_id: str, watched: Watched) -> Held | None:
        """The delayed spectators' pipeline of a watched game (the caller holds the
        lock): started at the version spectators may see now; None once it is over."""
        if watched.spectators is not None:
            return watched.spectators
        assert self.delays is not None
        delay = await self.delays.of(game_id)
        shown = await self.delays.limit(game_id)
        if delay is None or shown is None:
            return None
        seen = await self.store.read_game_range(game_id, 0, shown)
        late = Held(delay, watched.game, fold(watched.game, seen), shown)
        late.add(await self.store.read_game_range(game_id, shown, watched.version))
        watched.spectators = late
        self._release(game_id, watched)
        return late

    def _release(self, game_id: str, watched: Watched) -> None:
        """Show delayed spectators what they may see now; wake again when the next held
        move is old enough (a delay in seconds)."""
        late = watched.spectators
        if late is None:
            return
        out = late.due(int(time.time() * 1000))
        viewers = watched.viewers.get(SPECTATOR, set())
        if out and viewers:
            redacted = redact_stored(watched.game, watched.state, out, SPECTATOR)
            batch = b"".join(frame(e) for e in redacted)
            ended = out[-1].type == "GameEnded"
            view = view_frame(game_id, watched.game, late.state, late.shown, SPECTATOR)
            for v in list(viewers):
                v.push([(batch + view if v.views else batch, ended)])
        due = late.next_due_ms()
        if late.timer is not None:
            late.timer.cancel()
            late.timer = None
        if due is not None:
            loop = asyncio.get_running_loop()
            wait = max(0.0, due / 1000 - time.time()) + 0.01
            late.timer = loop.call_later(wait, self._wake, game_id, watched)

    def _wake(self, game_id: str, watched: Watched) -> None:
        async def release() -> None:
            async with watched.lock:
                self._release(game_id, watched)

        task = asyncio.create_task(release())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _fan_out(
        self,
        game_id: str,
        watched: Watched,
        new: Batch,
        seat: int,
        viewers: set[Viewer],
    ) -> None:
        """One audience's frames of a batch, redacted once (and its view drawn once, if
        any of its viewers asked for views), queued to each of its viewers."""
        redacted = new.redacted(watched.state, seat)
        # One write per batch and audience, not one per event: each write crosses the
        # ASGI middlewares and the server's transport.
        batch = new.framed(redacted)
        ended = redacted[-1].type == "GameEnded"
        plain = [(batch, ended)]
        with_view: list[tuple[bytes, bool]] | None = None  # drawn at the first who asks
        for v in list(viewers):
            if not v.views:
                v.push(plain)
                continue
            if with_view is None:
                state, version = watched.state, watched.version
                view = view_frame(game_id, watched.game, state, version, seat)
                with_view = [(batch + view, ended)]
            v.push(with_view)

    async def _drain(self, game_id: str, watched: Watched) -> None:
        """Read, fold and fan out until the watched game has every announced version."""
        try:
            while watched.version < watched.announced and not watched.empty:
                target = watched.announced
                async with watched.lock:
                    if not await self._advance(game_id, watched) and watched.announced == target:
                        break  # nothing new, and nothing announced meanwhile (a resync)
        except Exception as error:  # Redis away: the next announcement or resync retries
            log.warning("live fan-out failed", extra={"game_id": game_id, "error": str(error)})
        finally:
            watched.draining = None

    # -- versions ----------------------------------------------------------------------

    async def wait_version(self, game_id: str, version: int, within_s: float) -> bool:
        """Whether ``version`` of the game exists within ``within_s`` seconds
        (gateway.live.versions)."""
        return await self.versions.wait(game_id, version, within_s)

    def _announced(self, game_id: str, version: int) -> None:
        self.versions.announced(game_id, version)
        watched = self.watched.get(game_id)
        if watched is not None and version > watched.announced:
            watched.announced = version
            self._drain_if_behind(game_id, watched)

    def _drain_if_behind(self, game_id: str, watched: Watched) -> None:
        behind = watched.version < watched.announced and watched.draining is None
        if behind and not self._handed_out_now(game_id, watched):
            watched.draining = asyncio.create_task(self._drain(game_id, watched))

    def _handed_out_now(self, game_id: str, watched: Watched) -> bool:
        """The usual move: its announcement carried every new event and nobody holds the
        game's lock, so it is folded and handed out here, with nothing to await (a task
        and a lock a move, per watched game, were a part of the fan-out's cost)."""
        if watched.lock.locked() or watched.empty:
            return False
        new = watched.take_offered()
        if new is None:  # a gap: the drain reads the stream (what was offered is gone)
            return False
        try:
            self._hand_out(game_id, watched, new)
        except Exception as error:  # as the drain: logged, the next move or resync retries
            log.warning("live fan-out failed", extra={"game_id": game_id, "error": str(error)})
        return True

    async def _listen(self) -> None:
        revocations = revoked_channel(self.store.settings.key_prefix)
        delay = RESUBSCRIBE_S[0]
        while True:
            try:
                async with self.listener.pubsub() as pubsub:
                    await pubsub.subscribe(revocations, self._chat_channel, self._feed_channel)
                    if self.presence is not None:
                        await pubsub.subscribe(self.presence.keys.channel)
                    await self.channels.attach(pubsub)
                    delay = RESUBSCRIBE_S[0]
                    self._set_listening(True)
                    self._resync()
                    await self.streams_of.check()
                    try:
                        await self._until_lost(pubsub, revocations)
                    finally:
                        self.channels.detach()
            except (RedisError, OSError) as error:
                self._set_listening(False)
                log.warning("live listener lost Redis", extra={"error": str(error)})
                await asyncio.sleep(delay)
                delay = min(delay * 2, RESUBSCRIBE_S[1])
            except Exception as error:  # never let the one listener die: log, resubscribe
                self._set_listening(False)
                log.error("live listener failed", exc_info=error)
                await asyncio.sleep(delay)

    async def _until_lost(self, pubsub: PubSub, revocations: str) -> None:
        """Messages until the connection fails, or, under Sentinel, until another primary
        is named: a primary frozen, not dead, keeps its connections open, and a pub/sub
        reconnecting by itself would not read again what it missed."""
        if not follows_sentinels(self.listener):
            return await self._messages(pubsub, revocations)
        tasks = [
            asyncio.create_task(self._messages(pubsub, revocations)),
            asyncio.create_task(primary_moved(self.listener, pubsub)),
        ]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
        for task in done:
            task.result()  # the messages' failure, if that came first
        raise ConnectionError("the sentinels named another primary")

    async def _messages(self, pubsub: PubSub, revocations: str) -> None:
        presence = self.presence.keys.channel if self.presence is not None else None
        async for message in pubsub.listen():
            kind, channel = message["type"], (message["channel"] or b"").decode()
            if kind == "message":
                if channel == revocations:
                    self.streams_of.revoked(message["data"].decode())
                elif channel == presence:
                    self._presence(message["data"])
                elif channel == self._chat_channel:
                    self._chat(message["data"])
                elif channel == self._feed_channel:
                    self.feeds.woken(message["data"].decode())
                else:  # a game's announcement
                    self._on_message(game_of(channel), message["data"])
            elif kind == "subscribe":
                self.channels.confirmed(channel)
            elif kind == "unsubscribe":
                self.channels.unsubscribed(channel)

    def _set_listening(self, listening: bool) -> None:
        if self.tokens is not None:
            self.tokens.set_listening(listening)

    def _on_message(self, game_id: str, data: bytes) -> None:
        watched = self.watched.get(game_id)
        with contextlib.suppress(ValueError):
            if watched is None:  # nobody watches: only waiters care, for the version
                self._announced(game_id, int(data.split(b"\n", 1)[0]))
                return
            said = parse_announcement(game_id, watched.game.name, data)
            watched.offer(said.events)
            self._announced(game_id, said.version)

    def _resync(self) -> None:
        """After (re)subscribing: announcements may have been missed; read every watched
        game's stream again, and let waiters check the store once more."""
        for game_id, watched in list(self.watched.items()):
            self._announced(game_id, watched.version + 1)
        self.versions.look_again()
        self.feeds.wake_all()

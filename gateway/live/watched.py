"""What the hub keeps per game someone watches here (its folded state, its viewers by
seat) and per viewer (a bounded mailbox of frames; ended when its token is revoked or
the gateway drains)."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gateway.live.delay import Held
from gateway.live.mailbox import Mailbox
from services.core.eventstore import StoredEvent
from services.core.gamestate import fold, fold_parsed
from services.kernel.game import Event, Game

QUEUE_FRAMES = 2000  # a viewer further behind than this is dropped (it reconnects)


@dataclass(eq=False, slots=True)  # one per stream, for hours: no __dict__ each
class Viewer:
    seat: int
    token_hash: str = ""  # the token the stream was opened with (or its ticket's)
    expires_at: float = 0.0  # when that token expires (time.time(); 0: never)
    views: bool = False  # a view frame after each batch
    player_id: str = ""  # the account behind its token, if any (chat across blocks)
    queue: Mailbox[tuple[bytes, bool] | None] = field(default_factory=lambda: Mailbox(QUEUE_FRAMES))
    # Its presence mark in the game, for a seat's stream (the beats refresh it), and when
    # it was last given a frame (time.monotonic(); the beats ping it after a quiet spell).
    game_id: str = ""
    mark: str = ""
    pushed_at: float = field(default_factory=time.monotonic)

    def end(self, last: bytes = b"") -> None:
        """End the stream now, whatever is queued (its token is no longer good, or the
        gateway stops), after ``last`` if given. The queue is emptied in place: the
        stream waits on this very queue, and a new one would leave it waiting until its
        next heartbeat."""
        while not self.queue.empty():
            self.queue.get_nowait()
        if last:
            self.queue.put_nowait((last, True))
        else:
            self.queue.put_nowait(None)

    def push(self, frames: list[tuple[bytes, bool]]) -> None:
        """Frames (bytes, whether it is the game's last) in order."""
        self.pushed_at = time.monotonic()
        for f in frames:
            try:
                self.queue.put_nowait(f)
            except asyncio.QueueFull:  # too slow: end its stream, it resumes from its id
                self.end()
                return


@dataclass(eq=False)
class Watched:
    """A game someone watches: its state at ``version`` and its viewers by seat."""

    game: Game[Any]
    state: Any
    version: int = 0
    viewers: dict[int, set[Viewer]] = field(default_factory=lambda: defaultdict(set))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    announced: int = 0  # the newest version heard of
    draining: asyncio.Task[None] | None = None
    offered: list[StoredEvent] = field(default_factory=list)  # announced with the versions
    # Spectators of a game shown late (gateway.live.delay), while some watch here.
    spectators: Held | None = None
    joining: int = 0  # streams on their way in (subscribing, catching up)

    def offer(self, events: list[StoredEvent]) -> None:
        self.offered += events

    def take_offered(self) -> list[StoredEvent] | None:
        """The events after ``version`` up to the newest announced, if announcements
        carried all of them (in order, none missed), else None (read them: a new viewer's
        catch-up, a large append, a resubscription); forgets what it held."""
        got = [e for e in self.offered if e.version > self.version]
        self.offered = []
        if not got or [e.version for e in got] != list(range(self.version + 1, self.announced + 1)):
            return None
        return got

    def fold(self, events: list[StoredEvent], parsed: Sequence[Event] | None = None) -> None:
        """Fold the events that follow ``version`` on from it, without a gap (those
        already folded are skipped); ``parsed``: the same events parsed, if at hand."""
        newer: list[StoredEvent] = []
        newer_parsed: list[Event] = []
        for i, e in enumerate(events):
            if e.version == self.version + len(newer) + 1:
                newer.append(e)
                if parsed is not None:
                    newer_parsed.append(parsed[i])
        if newer:
            if parsed is None:
                self.state = fold(self.game, newer, self.state)
            else:
                self.state = fold_parsed(self.game, newer_parsed, self.state)
            self.version = newer[-1].version

    @property
    def empty(self) -> bool:
        """Nobody watches, and nobody is on the way: the hub may forget the game."""
        return not self.joining and not any(self.viewers.values())

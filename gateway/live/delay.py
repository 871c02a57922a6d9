"""Fair spectating (docs/fair-table.md): a table may show spectators its game some moves
or seconds late (options ``spectator_delay_moves``, ``spectator_delay_s``; on by default
when a seat is a player's), so nobody watching can tell a player what they should not
know yet. Every spectator surface (view, events, legal commands, live stream, replay, lobby)
shows the
game as it was at ``shown_version`` until it ends; then the whole log is public.

A move is one command's events (they share a command id and its first carries the
command); the opening (the creation's events) is always shown."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from services.core.codec import loads
from services.core.eventstore import EventStore, StoredEvent
from services.core.gamestate import fold
from services.core.lru import BytesLRU
from services.kernel.game import SPECTATOR, Game

TAIL = 500  # events read back from a game's end to find where its spectators are


@dataclass(frozen=True)
class Delay:
    moves: int = 0
    ms: int = 0

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> Delay | None:
        moves = int(options.get("spectator_delay_moves") or 0)
        seconds = int(options.get("spectator_delay_s") or 0)
        return cls(moves, seconds * 1000) if moves or seconds else None


def moves(events: Sequence[StoredEvent]) -> list[list[StoredEvent]]:
    """Consecutive events of one command, oldest first."""
    out: list[list[StoredEvent]] = []
    for e in events:
        if out and e.command_id == out[-1][-1].command_id and not e.command:
            out[-1].append(e)
        else:
            out.append([e])
    return out


def shown_version(tail: Sequence[StoredEvent], delay: Delay, now_ms: int) -> int:
    """The newest version spectators may see, given the game's last events (``tail``,
    ending at its newest; it holds the opening if it starts at version 1)."""
    if not tail:
        return 0
    groups = moves(tail)
    keep = len(groups)
    if delay.moves:
        keep = min(keep, len(groups) - delay.moves)
    if delay.ms:
        fresh = sum(1 for g in groups if g[0].time_ms > now_ms - delay.ms)
        keep = min(keep, len(groups) - fresh)
    if tail[0].version == 1:
        keep = max(keep, 1)  # the opening is always shown
    if keep <= 0:
        return tail[0].version - 1
    return groups[keep - 1][-1].version


class Delays:
    """Each game's delay (from its first event, kept: it never changes) and where its
    spectators are now."""

    MAX_KNOWN = 10_000  # ~1.5 MB at most; one read of a first event brings one back

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._known: dict[str, Delay | None] = {}
        # Spectators' views by (game, version): every spectator of a delayed game asks
        # for the same few versions, each a replay from the log.
        self.views: BytesLRU[tuple[str, int], dict[str, Any]] = BytesLRU(16 * 1024 * 1024)
        self.legal: BytesLRU[tuple[str, int], dict[str, Any]] = BytesLRU(4 * 1024 * 1024)

    async def of(self, game_id: str) -> Delay | None:
        if game_id not in self._known:
            first = await self.store.read_game_range(game_id, 0, 1)
            options = loads(first[0].payload).get("options", {}) if first else {}
            if len(self._known) >= self.MAX_KNOWN:
                self._known.clear()
            self._known[game_id] = Delay.of(options)
        return self._known[game_id]

    async def limit(self, game_id: str) -> int | None:
        """The newest version spectators may see now; None when nothing is held back (no
        delay, or the game is over)."""
        shown = await self.shown(game_id)
        return None if shown is None else shown[0]

    async def shown(self, game_id: str) -> tuple[int, int] | None:
        """The newest version spectators may see now and its time (ms; 0 for none yet);
        None when nothing is held back (no delay, or the game is over)."""
        delay = await self.of(game_id)
        if delay is None:
            return None
        tail = await self.store.read_game_tail(game_id, TAIL)
        if not tail or tail[-1].type == "GameEnded":
            return None
        if tail[0].version > 1 and len(moves(tail)) <= delay.moves:
            tail = await self.store.read_game(game_id)  # very long moves: read them all
        version = shown_version(tail, delay, int(time.time() * 1000))
        at = [e.time_ms for e in tail if e.version == version]
        return version, at[0] if at else 0

    async def commands(self, game: Game[Any], game_id: str, version: int) -> dict[str, Any]:
        """A spectator's legal commands as they were at ``version`` (whose turn it was,
        the phase): the present's would tell what the delay holds back."""
        found = self.legal.get((game_id, version))
        if found is None:
            state = fold(game, await self.store.read_game_range(game_id, 0, version))
            found = {"version": version, **game.legal_commands(state, SPECTATOR)}
            self.legal.put((game_id, version), found, len(orjson.dumps(found)))
        return found


@dataclass(eq=False)
class Held:
    """A watched game's delayed spectators (gateway.live.hub): the state they are shown, at
    ``shown``, and the newer events held back from them."""

    delay: Delay
    game: Game[Any]
    state: Any
    shown: int
    held: list[StoredEvent] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None

    def add(self, events: Sequence[StoredEvent]) -> None:
        last = self.held[-1].version if self.held else self.shown
        self.held += [e for e in events if e.version > last]

    def due(self, now_ms: int) -> list[StoredEvent]:
        """The events spectators may see now (all of them once the game is over),
        folded into their state."""
        if not self.held:
            return []
        groups = moves(self.held)
        keep = len(groups)
        if self.held[-1].type != "GameEnded":
            if self.delay.moves:
                keep = min(keep, len(groups) - self.delay.moves)
            if self.delay.ms:
                fresh = sum(1 for g in groups if g[0].time_ms > now_ms - self.delay.ms)
                keep = min(keep, len(groups) - fresh)
        out = [e for g in groups[: max(keep, 0)] for e in g]
        if out:
            self.held = self.held[len(out) :]
            self.state = fold(self.game, out, self.state)
            self.shown = out[-1].version
        return out

    def next_due_ms(self) -> int | None:
        """When the oldest held move is old enough to show (a delay in seconds)."""
        if not self.delay.ms or not self.held:
            return None
        return moves(self.held)[0][0].time_ms + self.delay.ms

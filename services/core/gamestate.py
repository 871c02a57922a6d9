"""The state of a game at a version: the one place stored events are folded into a game's
state (the engine runtime, the projection, replays and the gateway's live hub all fold
through here), and the byte-bounded cache of such states the engine keeps.

A command's own events are never folded here: ``decide`` hands back the state it folded
while emitting them (services.kernel.game.Decision), and ``GameAt.decided`` takes it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from services.core.codec import to_domain
from services.core.eventstore import NewEvent, StoredEvent
from services.core.lru import OBJECT_FACTOR, BytesLRU
from services.kernel.game import Decision, Event, Game

S = TypeVar("S")


def fold(game: Game[S], stored: Iterable[StoredEvent], state: S | None = None) -> S:
    """``state`` (the game's initial state by default) after the stored events."""
    folded = game.initial() if state is None else state
    for event in stored:
        folded = game.evolve(folded, to_domain(event))
    return folded


def fold_parsed(game: Game[S], events: Iterable[Event], state: S) -> S:
    """``state`` after events already parsed from their stored form (the live hub parses
    a move's events once, for its fold and its redactions)."""
    for event in events:
        state = game.evolve(state, event)
    return state


def state_at(game: Game[S], stored: Iterable[StoredEvent], version: int) -> S:
    """The state at ``version``, from a game's events (those after it are not folded)."""
    return fold(game, (e for e in stored if e.version <= version))


def in_memory(events: Iterable[StoredEvent | NewEvent]) -> int:
    """Estimated bytes a state grows by when it folds ``events`` (services.core.lru)."""
    return OBJECT_FACTOR * sum(len(e.payload) for e in events)


@dataclass(frozen=True)
class GameAt(Generic[S]):
    """A game's state at ``version``, with the seed its draws derive from."""

    state: S
    version: int
    seed: str
    size: int = 0  # estimated bytes in memory

    def advanced(self, game: Game[S], newer: Sequence[StoredEvent]) -> GameAt[S]:
        """This state after the stored events that follow it."""
        if not newer:
            return self
        state = fold(game, newer, self.state)
        return GameAt(state, newer[-1].version, self.seed, self.size + in_memory(newer))

    def decided(self, decision: Decision[S], appended: Sequence[NewEvent]) -> GameAt[S]:
        """This state after a command's events, as ``decide`` folded them."""
        version, grown = self.version + len(appended), self.size + in_memory(appended)
        return GameAt(decision.state, version, self.seed, grown)  # (replace() is slower)


class GameStates(Generic[S]):
    """GameAt by game id within a byte budget; a newer version never gives way to an
    older one (two commands of one game may finish in either order)."""

    def __init__(self, max_bytes: int) -> None:
        self._lru: BytesLRU[str, GameAt[S]] = BytesLRU(max_bytes)

    def get(self, game_id: str) -> GameAt[S] | None:
        return self._lru.get(game_id)

    def keep(self, game_id: str, at: GameAt[S]) -> None:
        current = self._lru.peek(game_id)
        if current is None or current.version <= at.version:
            self._lru.put(game_id, at, at.size)

    def drop(self, game_id: str) -> None:
        self._lru.pop(game_id)

    def clear(self) -> None:
        self._lru.clear()

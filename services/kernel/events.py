"""Typed events: each game declares its event types in its ``events.py`` as frozen
dataclasses named after the event. The store keeps ``Event(type, data)``; folding reads
the typed form back and dispatches on its class. An event type the game does not
declare is an error, never silently skipped: a log the code cannot read must stop the
fold, not bend the state."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar

from typing_extensions import dataclass_transform

from services.kernel.game import ENGINE, Event

S = TypeVar("S")
T = TypeVar("T")


class UnknownEvent(Exception):
    """An event whose type the game does not declare (a newer log, or a bug)."""


@dataclass_transform(frozen_default=True)
def event(cls: type[T]) -> type[T]:
    """Declare an event type: a frozen, slotted dataclass (``@event class CardsPlayed``)."""
    return dataclasses.dataclass(frozen=True, slots=True)(cls)


def payload(typed: Any) -> dict[str, Any]:
    """A typed event's JSON payload: its fields, shallow (values are JSON-shaped already);
    optional fields (default None) still at None are left out."""
    return {
        name: value
        for name, optional in _fields(type(typed))
        if (value := getattr(typed, name)) is not None or not optional
    }


_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _fields(cls: type) -> tuple[tuple[str, bool], ...]:
    """(name, optional) per field, kept: dataclasses.fields is slow for the hot path."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple((f.name, f.default is None) for f in dataclasses.fields(cls))
    return found


class EventTypes:
    """The event types of one game, by name; ``seen``: for an event its redaction
    (view.redact) reshapes, the shape a seat sees while the game runs (published in the
    API's document beside the event's own; a test checks every redacted event has it)."""

    def __init__(self, *types: type, seen: Mapping[str, type] | None = None) -> None:
        self.by_name: dict[str, type] = {t.__name__: t for t in types}
        self._fields = {t.__name__: {f.name for f in dataclasses.fields(t)} for t in types}
        self.seen: dict[str, type] = dict(seen or {})
        unknown = sorted(set(self.seen) - set(self.by_name))
        if unknown:
            raise TypeError(f"seen forms of undeclared events: {', '.join(unknown)}")

    def __iter__(self) -> Iterator[str]:
        return iter(self.by_name)

    def parse(self, stored: Event) -> Any:
        """The typed form of a stored event; raises UnknownEvent."""
        cls = self.by_name.get(stored.type)
        if cls is None:
            raise UnknownEvent(f"no event type {stored.type!r} in this game")
        try:
            return cls(**stored.data)
        except TypeError:  # keys this version no longer reads (or lacks)
            known = self._fields[stored.type]
            return cls(**{k: v for k, v in stored.data.items() if k in known})


class Folds(Generic[S]):
    """A game's ``evolve``: one fold per event type, every declared type covered."""

    def __init__(self, types: EventTypes, folds: Mapping[type, Callable[[S, Any], S]]) -> None:
        missing = sorted(n for n, t in types.by_name.items() if t not in folds)
        if missing:
            raise TypeError(f"no fold for {', '.join(missing)}")
        self.types = types
        self._folds = dict(folds)

    def apply(self, state: S, typed: Any) -> S:
        return self._folds[type(typed)](state, typed)

    def __call__(self, state: S, stored: Event) -> S:
        """state + stored event -> state."""
        return self._folds[type(typed := self.types.parse(stored))](state, typed)

    def replay(self, events: Iterable[Event], state: S) -> S:
        """The state after ``events``, from ``state`` (the replay of a game's log)."""
        for stored in events:
            state = self(state, stored)
        return state


def stored(typed: Any, actor: int = ENGINE) -> Event:
    """The event as the store keeps it."""
    return Event(type(typed).__name__, payload(typed), actor)


@event
class GameCreated:
    """Every game's first event, written by the engine (services.kernel.playthrough)."""

    options: dict[str, Any]
    seats: list[dict[str, Any]]
    seed_hash: str
    seed: str = ""  # redacted from everything a client sees until the game ends
    practice: bool | None = None  # the creator chose the seed (AL-2)
    rematch_of: str | None = None  # the finished game this one plays again

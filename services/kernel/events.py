"""Typed events: each game declares its event types in its ``events.py`` as frozen
dataclasses named after the event. The store keeps ``Event(type, data)``; folding reads
the typed form back and dispatches on its class. An event type the game does not
declare is an error, never silently skipped: a log the code cannot read must stop the
fold, not bend the state.

Shapes change by version (docs/events.md): a type declares its ``VERSION`` (1 if it
never changed) and ``UPCASTS``, one function per older version turning that version's
data into the next one's. Every read of a stored event goes through ``upcast`` (the
folds here, the engine's and the live hub's redaction, records), so code only ever
sees the current shape and a log written by any released version still replays."""

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


Upcast = Callable[[dict[str, Any]], dict[str, Any]]


def version_of(cls: type) -> int:
    """The current schema version of an event type (``VERSION``; 1 if never changed)."""
    return int(getattr(cls, "VERSION", 1))


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
    API's document beside the event's own; a test checks every redacted event has it).

    ``hidden``: every type the game's redaction may change while the game runs (those
    with a seen shape and those redacted in their own shape), when the game says so.
    Redaction then passes a list of other events on as it is, without asking the game
    for each event and audience (services.core.redaction: most moves hide nothing); a
    test plays every game's bots and checks that nothing outside it was ever changed.
    None (not said): any type may be, and every event is asked about."""

    def __init__(
        self,
        *types: type,
        seen: Mapping[str, type] | None = None,
        hidden: Iterable[str] | None = None,
    ) -> None:
        self.by_name: dict[str, type] = {t.__name__: t for t in types}
        self._fields = {t.__name__: {f.name for f in dataclasses.fields(t)} for t in types}
        self._versions = {t.__name__: version_of(t) for t in types}  # read on every fold
        self.seen: dict[str, type] = dict(seen or {})
        unknown = sorted(set(self.seen) - set(self.by_name))
        if unknown:
            raise TypeError(f"seen forms of undeclared events: {', '.join(unknown)}")
        self.hidden: frozenset[str] | None = None
        if hidden is not None:
            self.hidden = frozenset(hidden) | frozenset(self.seen)
            unknown = sorted(self.hidden - set(self.by_name))
            if unknown:
                raise TypeError(f"hidden events undeclared: {', '.join(unknown)}")

    def __iter__(self) -> Iterator[str]:
        return iter(self.by_name)

    def version(self, name: str) -> int:
        return self._versions.get(name, 1)

    def stale(self, name: str, schema_version: int) -> bool:
        """Whether an event of this type stored at ``schema_version`` has an older shape
        than today's (events written before versions were counted are version 1)."""
        return max(1, schema_version) < self._versions.get(name, 1)

    def upcast(self, stored: Event) -> Event:
        """The event in its type's current shape: each older version's upcaster applied
        in turn (an event of the current version, or of an unknown type, as it is)."""
        cls = self.by_name.get(stored.type)
        if cls is None or not self.stale(stored.type, stored.schema_version):
            return stored
        data = dict(stored.data)
        steps: Mapping[int, Upcast] = getattr(cls, "UPCASTS", {})
        for v in range(max(1, stored.schema_version), version_of(cls)):
            if v not in steps:
                raise UnknownEvent(f"{stored.type} has no upcaster from version {v}")
            data = steps[v](data)
        return Event(stored.type, data, stored.actor, version_of(cls))

    def parse(self, stored: Event) -> Any:
        """The typed form of a stored event (upcast first); raises UnknownEvent."""
        cls = self.by_name.get(stored.type)
        if cls is None:
            raise UnknownEvent(f"no event type {stored.type!r} in this game")
        if stored.schema_version < self._versions[stored.type]:
            stored = self.upcast(stored)  # (a no-op for version 0: read as version 1)
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
    """The event as the store keeps it, in its type's current version."""
    cls = type(typed)
    return Event(cls.__name__, payload(typed), actor, version_of(cls))


@event
class GameCreated:
    """Every game's first event, written by the engine (services.kernel.playthrough)."""

    options: dict[str, Any]
    seats: list[dict[str, Any]]
    seed_hash: str
    seed: str = ""  # redacted from everything a client sees until the game ends
    practice: bool | None = None  # the creator chose the seed (AL-2)
    rematch_of: str | None = None  # the finished game this one plays again

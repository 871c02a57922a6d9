"""Bad input is rejected with a typed error and leaves Redis unchanged, both by the
Python adapter and, for callers that bypass it, by the append script itself."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from services.core.errors import EventTooLarge, InvalidArgument, TooManyEvents
from services.core.eventstore import EventStore, NewEvent
from tests.eventstore_helpers import append, cmd, ev, snapshot

GAME = "g-bad-input"


async def seeded(store: EventStore) -> dict[bytes, bytes]:
    await append(store, GAME, 0, ev("Created"))
    return await snapshot(store)


def raw_event(**changes: Any) -> NewEvent:
    fields: dict[str, Any] = {"id": str(uuid.uuid4()), "type": "T", "payload": b"{}"}
    fields.update(changes)
    return NewEvent(**fields)


BAD_APPENDS: list[tuple[str, dict[str, Any], type[InvalidArgument]]] = [
    ("negative version", {"expected": -1}, InvalidArgument),
    ("bool version", {"expected": True}, InvalidArgument),
    ("empty command id", {"command_id": ""}, InvalidArgument),
    ("command id with newline", {"command_id": "a\nb"}, InvalidArgument),
    ("bad game id", {"game": "a b{c}"}, InvalidArgument),
    ("no events", {"events": []}, InvalidArgument),
    ("too many events", {"events": "many"}, TooManyEvents),
    ("oversized event", {"events": "big"}, EventTooLarge),
    ("non-UTF-8 type", {"events": [raw_event(type="bad\udcff")]}, InvalidArgument),
    ("empty type", {"events": [raw_event(type="")]}, InvalidArgument),
    ("str payload", {"events": [raw_event(payload="{}")]}, InvalidArgument),
    ("empty event id", {"events": [raw_event(id="")]}, InvalidArgument),
    ("float actor", {"events": [raw_event(actor=1.5)]}, InvalidArgument),
    ("negative schema", {"events": [raw_event(schema_version=-2)]}, InvalidArgument),
]


@pytest.mark.parametrize(("case", "change", "error"), BAD_APPENDS, ids=[c[0] for c in BAD_APPENDS])
async def test_bad_append_is_typed_and_changes_nothing(
    any_store: EventStore, case: str, change: dict[str, Any], error: type[InvalidArgument]
) -> None:
    before = await seeded(any_store)
    events: Any = change.get("events", [ev()])
    if events == "many":
        events = [ev() for _ in range(any_store.settings.max_events_per_append + 1)]
    if events == "big":
        events = [ev(), ev(blob="x" * any_store.settings.max_event_bytes)]
    with pytest.raises(error) as info:
        await any_store.append(
            change.get("game", GAME),
            "test-game",
            change.get("expected", 1),
            change.get("command_id", cmd()),
            events,
            time_ms=1,
            engine_version="test-1",
        )
    assert info.value.code and info.value.message
    assert await snapshot(any_store) == before


async def test_wrong_game_type_is_typed_and_changes_nothing(any_store: EventStore) -> None:
    before = await seeded(any_store)
    with pytest.raises(InvalidArgument) as info:
        await any_store.append(GAME, "other-game", 1, cmd(), [ev()], time_ms=1, engine_version="x")
    assert info.value.code == "game_type_mismatch"
    assert await snapshot(any_store) == before


def script_args(store: EventStore, **override: Any) -> list[Any]:
    head: dict[str, Any] = {
        "expected": 1,
        "command": cmd(),
        "game": GAME,
        "type": "test-game",
        "time": 1,
        "engine": "x",
        "partition": store.partition_of(GAME),
        "max_events": 256,
        "max_bytes": 65536,
        "count": 1,
        "attended": 0,
        "key": "0:" + cmd(),
        "digest": "",
        "said": b"",  # the command as sent (kept with its first event)
    }
    event = {"id": "e1", "etype": "T", "schema": 1, "payload": b"{}", "actor": -1}
    head.update({k: v for k, v in override.items() if k in head})
    event.update({k: v for k, v in override.items() if k in event})
    return [*head.values(), *event.values()]


LUA_CASES = [
    ("negative version", {"expected": -1}, "bad_version"),
    ("empty command id", {"command": ""}, "bad_command_id"),
    ("non-UTF-8 type", {"etype": b"bad\xff\xfe"}, "bad_event_type"),
    ("overlong UTF-8 type", {"etype": b"\xc0\xaf"}, "bad_event_type"),
    ("surrogate in type", {"etype": b"\xed\xa0\x80"}, "bad_event_type"),
    ("count mismatch", {"count": 2}, "bad_arguments"),
    ("zero events", {"count": 0}, "no_events"),
    ("over the event limit", {"count": 3, "max_events": 2}, "too_many_events"),
    ("oversized payload", {"payload": b"x" * 70000}, "event_too_large"),
    ("text actor", {"actor": "north"}, "bad_actor"),
    ("attended neither 0 nor 1", {"attended": "yes"}, "bad_arguments"),
    ("control byte in an ASCII type", {"etype": b"Played\x07"}, "bad_event_type"),
    ("DEL in a command id", {"command": "c\x7f"}, "bad_command_id"),
    ("empty idempotency key", {"key": ""}, "bad_command_id"),
    ("digest that is not hex", {"digest": "xyz"}, "bad_arguments"),
    ("oversized command", {"said": b"x" * 70000}, "event_too_large"),
]


@pytest.mark.parametrize(("case", "override", "code"), LUA_CASES, ids=[c[0] for c in LUA_CASES])
async def test_the_script_validates_before_its_first_write(
    any_store: EventStore, case: str, override: dict[str, Any], code: str
) -> None:
    before = await seeded(any_store)
    reply = await any_store._append(
        keys=any_store.keys.append_keys(GAME), args=script_args(any_store, **override)
    )
    assert [reply[0], reply[1]] == [b"invalid", code.encode()]
    assert await snapshot(any_store) == before


async def test_the_script_accepts_valid_multibyte_utf8(any_store: EventStore) -> None:
    await seeded(any_store)
    reply = await any_store._append(
        keys=any_store.keys.append_keys(GAME), args=script_args(any_store, etype="Gespielt✓🦒")
    )
    assert reply[0] == b"ok"
    assert (await any_store.read_game(GAME, 1))[0].type == "Gespielt✓🦒"

"""Domain events <-> stored events: payloads are compact JSON.

orjson rather than the standard library: JSON of views, events and commands was the
largest single cost of the engine and the projection in the profile.
Its output is the same compact UTF-8 JSON; integer keys become strings as with ``json``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import orjson

from services.core.eventstore import NewEvent, StoredEvent
from services.core.ids import random_uuid
from services.kernel.game import Event


def dumps(data: Any) -> bytes:
    try:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:  # integers past 64 bits in client options: as before
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def canonical(data: Any) -> bytes:
    """The same bytes for equal JSON data, whatever the key order (for digests)."""
    try:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return json.dumps(data, separators=(",", ":"), sort_keys=True, default=str).encode()


def loads(raw: bytes | str) -> Any:
    """Raises ValueError (orjson.JSONDecodeError) on anything but valid JSON."""
    return orjson.loads(raw)


def to_new(event: Event) -> NewEvent:
    # By position (NewEvent's field order): every event an engine appends comes here.
    return NewEvent(random_uuid(), event.type, dumps(event.data), event.actor, event.schema_version)


def to_domain(stored: StoredEvent) -> Event:
    data: Mapping[str, Any] = loads(stored.payload)
    return Event(stored.type, data, stored.actor, stored.schema_version)

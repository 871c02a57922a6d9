"""Domain events <-> stored events: payloads are compact JSON."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

from services.core.eventstore import NewEvent, StoredEvent
from services.core.game import Event


def dumps(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def loads(raw: bytes) -> Any:
    return json.loads(raw)


def to_new(event: Event) -> NewEvent:
    return NewEvent(
        id=str(uuid.uuid4()), type=event.type, payload=dumps(event.data), actor=event.actor
    )


def to_domain(stored: StoredEvent) -> Event:
    data: Mapping[str, Any] = loads(stored.payload)
    return Event(stored.type, data, stored.actor)

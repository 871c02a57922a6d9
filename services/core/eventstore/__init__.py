"""Redis Streams event store (DESIGN §3)."""

from services.core.eventstore.connect import open_store, redis_client
from services.core.eventstore.keys import Keys, check_game_id
from services.core.eventstore.model import (
    AppendResult,
    GameMeta,
    NewEvent,
    StoredEvent,
)
from services.core.eventstore.store import EventStore

__all__ = [
    "AppendResult",
    "EventStore",
    "GameMeta",
    "Keys",
    "NewEvent",
    "StoredEvent",
    "check_game_id",
    "open_store",
    "redis_client",
]

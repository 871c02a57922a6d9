"""Folding events into game states on the read side, and turning a state into its read
model (summary and every viewer's view)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.core.codec import to_domain
from services.core.eventstore import EventStore, StoredEvent
from services.core.gamestate import fold
from services.core.lru import OBJECT_FACTOR, BytesLRU
from services.kernel.game import SPECTATOR, Game
from services.projection.readmodels import GameModel
from services.projection.streams import STREAMS


@dataclass
class Folded:
    game: Game[Any]
    state: Any
    version: int
    created: dict[str, Any]  # the GameCreated payload (seats, options), seed removed
    created_ms: int
    updated_ms: int
    size: int = 0  # estimated bytes in memory (services.core.lru)


class Folder:
    """Game states by game id, advanced event by event; a game seen first mid-stream
    (after a restart from a checkpoint) is first rebuilt from its own stream."""

    def __init__(self, store: EventStore, cache_bytes: int = 128 * 1024 * 1024) -> None:
        self.store = store
        self.games: BytesLRU[str, Folded] = BytesLRU(cache_bytes)

    async def apply(self, event: StoredEvent) -> Folded | None:
        """Fold one event; None when the game type is unknown to this build. A game that
        ends leaves the cache: nothing follows its GameEnded."""
        folded = self.games.get(event.game_id)
        if folded is None or folded.version < event.version - 1:
            folded = await self.load(event.game_id, event.game_type, event.version - 1)
            if folded is None:
                return None
        if folded.version >= event.version:  # redelivered: already folded
            return folded
        self._fold(folded, event)
        if event.type == "GameEnded":
            self.games.pop(event.game_id)
        else:
            self.games.put(event.game_id, folded, folded.size)
        return folded

    def _fold(self, folded: Folded, event: StoredEvent) -> None:
        folded.state = fold(folded.game, [event], folded.state)
        folded.version = event.version
        folded.updated_ms = event.time_ms
        folded.size += OBJECT_FACTOR * len(event.payload)
        if event.type == "GameCreated":
            created = to_domain(event).data
            folded.created = {k: v for k, v in created.items() if k != "seed"}
            folded.created_ms = event.time_ms

    async def load(self, game_id: str, game_type: str, up_to: int) -> Folded | None:
        """The game folded from its own stream up to version ``up_to`` (and cached);
        None when the game type is unknown to this build."""
        game = STREAMS.get(game_type)
        if game is None:
            return None
        folded = Folded(game, game.initial(), 0, {}, 0, 0)
        if up_to > 0:
            for stored in await self.store.read_game_range(game_id, 0, up_to):
                self._fold(folded, stored)
        self.games.put(game_id, folded, folded.size)
        return folded


def model(game_id: str, f: Folded) -> GameModel:
    status = f.game.status(f.state)
    seats = f.created.get("seats", [])
    # The public view only: a seat's own view is read by its one player, who has it from
    # the command's answer, the live stream's view frames or the engine; drawing every
    # seat's on every batch was most of the projection's work per game (DESIGN §4).
    views = {SPECTATOR: f.game.view(f.state, SPECTATOR)}
    summary = {
        "game_id": game_id,
        "game": f.game.name,
        "version": f.version,
        "status": status.to_json(),
        "seats": seats,
        "options": f.created.get("options", {}),
        "seed_hash": f.created.get("seed_hash", ""),
        "practice": bool(f.created.get("practice", False)),
        "created_ms": f.created_ms,
        "updated_ms": f.updated_ms,
    }
    table = views[SPECTATOR].get("table") or {}
    if table.get("clocks"):  # each seat's time bank: games awaiting a player, by time left
        summary["clocks"] = table["clocks"]
    return GameModel(game_id, f.version, summary, views)

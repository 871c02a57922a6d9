"""What the event store takes and gives back."""

from __future__ import annotations

from dataclasses import dataclass

from services.kernel.game import ENGINE


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event an engine wants to append; the store assigns its version and position."""

    id: str
    type: str
    payload: bytes
    actor: int = ENGINE  # the engine itself (deal, robot, timer) unless a seat acted
    schema_version: int = 1


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as read back from a game stream or a partition log."""

    game_id: str
    game_type: str
    version: int
    id: str
    type: str
    schema_version: int
    payload: bytes
    actor: int
    command_id: str
    time_ms: int
    engine_version: str
    position: int = 0  # partition-log position; 0 when read from the game stream
    # The command whose first event this is, as sent (JSON; game streams only, and only
    # since commands are recorded): {"seat", "command", "stand_in"?} or {"create": ...}.
    command: bytes = b""


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append did. A duplicate (known command id) reports the original append."""

    version: int
    partition: int
    first_position: int
    count: int
    duplicate: bool = False
    digest: str = ""  # of the command first appended under this idempotency key

    @property
    def first_version(self) -> int:
        return self.version - self.count + 1

    @property
    def last_position(self) -> int:
        """0 when nothing was written (a dry run)."""
        return self.first_position + self.count - 1 if self.count else 0


@dataclass(frozen=True, slots=True)
class GameMeta:
    game_id: str
    game_type: str
    version: int
    partition: int
    created_ms: int
    updated_ms: int
    last_event_id: str

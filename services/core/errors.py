"""Typed errors shared by every service (a game's own are in services.kernel.errors).

Each error carries a stable machine-readable ``code`` and one human sentence. Adapters
(gRPC, HTTP) map the classes to statuses; nothing above them parses messages.
"""

from __future__ import annotations

from services.kernel.errors import InvalidArgument, RaffeError, RuleViolation

__all__ = [
    "EventTooLarge",
    "GameTypeMismatch",
    "InvalidArgument",
    "LimitExceeded",
    "RaffeError",
    "RuleViolation",
    "StoreUnavailable",
    "TooManyEvents",
    "UnknownGame",
    "VersionConflict",
    "store_failure",
]


class LimitExceeded(InvalidArgument):
    """A size or count limit from the settings was exceeded."""

    code = "limit_exceeded"


class EventTooLarge(LimitExceeded):
    code = "event_too_large"


class TooManyEvents(LimitExceeded):
    code = "too_many_events"


class VersionConflict(RaffeError):
    """The expected version is not the game's current version; nothing was written."""

    code = "version_conflict"

    def __init__(self, expected: int, current: int, message: str = "") -> None:
        super().__init__(
            message or f"expected version {expected} but the game is at version {current}",
        )
        self.expected = expected
        self.current = current


class GameTypeMismatch(InvalidArgument):
    code = "game_type_mismatch"


class UnknownGame(RaffeError):
    code = "unknown_game"


class StoreUnavailable(RaffeError):
    """Redis did not answer (restarting, unreachable, out of connections): nothing was
    decided; the same request may be sent again (command ids make that safe)."""

    code = "store_unavailable"


def store_failure(error: BaseException) -> StoreUnavailable | None:
    """The typed error for a failure to reach Redis, or None for any other error."""
    from redis.exceptions import BusyLoadingError, ConnectionError, TimeoutError

    if isinstance(error, ConnectionError | TimeoutError | BusyLoadingError | OSError):
        return StoreUnavailable(f"the event store did not answer ({type(error).__name__})")
    return None

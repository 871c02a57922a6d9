"""Typed errors shared by every service (a game's own are in services.kernel.errors).

Each error carries a stable machine-readable ``code`` and one human sentence. Adapters
(gRPC, HTTP) map the classes to statuses; nothing above them parses messages.
"""

from __future__ import annotations

from services.kernel.errors import InvalidArgument, RaffeError, RuleViolation

__all__ = [
    "Contended",
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


class NotReplicated(StoreUnavailable):
    """An append the primary holds but too few replicas confirmed in time (WAIT): it may
    survive or be lost in a failover; the same command id decides it exactly once."""

    code = "not_replicated"


class Contended(StoreUnavailable):
    """Writers in other replicas kept appending to the game while this command was
    decided, more times than the engine retries: nothing of it was written; the same
    request may be sent again (a 503 with Retry-After, like an unreachable store)."""

    code = "contended"


def store_failure(error: BaseException) -> StoreUnavailable | None:
    """The typed error for a failure to reach Redis, or None for any other error. A
    failover shows as a refused connection, a former primary's READONLY, a cluster that
    is down or a slot that moves for a moment: all of them pass, so all are 503s."""
    from redis.exceptions import (
        BusyLoadingError,
        ClusterDownError,
        ConnectionError,
        ReadOnlyError,
        TimeoutError,
        TryAgainError,
    )

    passing = (
        ConnectionError,
        TimeoutError,
        BusyLoadingError,
        ReadOnlyError,
        ClusterDownError,
        TryAgainError,
        OSError,
    )
    if isinstance(error, passing) or _no_replicas(error):
        return StoreUnavailable(f"the event store did not answer ({type(error).__name__})")
    return None


def _no_replicas(error: BaseException) -> bool:
    """A primary short of replicas refuses writes (min-replicas-to-write): a primary cut
    off from its replicas, or one the sentinels replaced that has not heard it yet."""
    from redis.exceptions import ResponseError

    # "in", not "startswith": a pipeline wraps its commands' errors in a sentence.
    return isinstance(error, ResponseError) and "NOREPLICAS" in str(error)

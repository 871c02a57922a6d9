"""Where a table's spectators are (gateway/live/delay.py): some moves or seconds behind, the
opening always shown."""

from __future__ import annotations

from gateway.live.delay import Delay, shown_version
from services.core.eventstore import StoredEvent


def test_a_spectator_sees_the_version_a_delay_allows() -> None:
    def event(version: int, command: str, time_ms: int) -> StoredEvent:
        said = b"{}" if version in (1, 3, 5, 6) else b""
        return StoredEvent(
            "g", "t", version, str(version), "E", 1, b"{}", 0, command, time_ms, "e", 0, said
        )

    # Moves: the opening (1-2), then commands of versions 3-4, 5 and 6.
    log = [event(1, "c", 0), event(2, "c", 0), event(3, "a", 10), event(4, "a", 10)]
    log += [event(5, "b", 20), event(6, "d", 30)]
    assert shown_version(log, Delay(moves=2), 30) == 4
    assert shown_version(log, Delay(moves=9), 30) == 2  # the opening is always shown
    assert shown_version(log, Delay(ms=15), 30) == 4  # moves of the last 15 ms held back
    assert shown_version(log, Delay(moves=1, ms=5), 30) == 5

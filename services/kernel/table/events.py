"""The table's events: who left, who is gone or back, the time banks (the table's own
GameEnded is the game's event type with ``by_table``)."""

from __future__ import annotations

from dataclasses import field

from services.kernel.events import EventTypes, event


@event
class SeatLeft:
    """A player conceded or left; a bot stands in for the seat to the end."""

    seat: int
    reason: str  # "conceded" | "left" | "timed_out" (a turn-based table's take-over rule)
    claim_from_ms: int = 0  # at a table of two: when the other may claim the win


@event
class SeatGone:
    """Presence found the seat's player gone past the setting; a bot stands in."""

    seat: int
    claim_from_ms: int = 0


@event
class SeatReturned:
    """A gone player came back and plays their seat again."""

    seat: int


@event
class ClocksSet:
    """Every seat's time bank after a command (ms left; when its clock started, 0 while
    it is not running; the seats whose bank ran out in the current phase)."""

    banks: list[int]
    since: list[int]
    flagged: list[int] = field(default_factory=list)


@event
class TimeRanOut:
    """A seat's time ran out (its turn timer: ``clock`` "turn"; its time bank: "bank"):
    its bot plays the move it owes, in the events that follow; the player stays (AL-3)."""

    seat: int
    clock: str  # "turn" | "bank"


@event
class VacationSet:
    """A turn-based seat's player is on vacation until ``until_ms`` (a time already past
    ends it): their clock does not run meanwhile (the ClocksSet that follows says where
    it starts again)."""

    seat: int
    until_ms: int


TABLE_EVENTS = EventTypes(SeatLeft, SeatGone, SeatReturned, ClocksSet, TimeRanOut, VacationSet)
# After one of these a bot plays a seat: the game is followed by the runners from then on.
STAND_IN_EVENTS = frozenset({"SeatLeft", "SeatGone"})

"""The state of a table: the game's own, and what the table knows around it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from services.kernel.frozen import Replaceable
from services.kernel.game import Event
from services.kernel.shared import names, seats

S = TypeVar("S")


@dataclass(frozen=True)
class Table(Replaceable, Generic[S]):
    """Not slotted, so that ``but`` (every event a table folds makes one) copies its
    __dict__: dataclasses.replace on the slotted form showed in the projection's and
    the engines' profiles."""

    game: S
    kinds: tuple[str, ...] = ()  # each seat's kind at creation: human, bot, open
    seed: str = ""
    left: tuple[tuple[int, str], ...] = ()  # (seat, reason), in the order they left
    gone: tuple[int, ...] = ()
    claim_from_ms: int = 0  # a table of two: when the remaining player may claim
    bank_ms: int = 0  # 0: no time banks
    increment_ms: int = 0
    banks: tuple[int, ...] = ()
    since: tuple[int, ...] = ()
    flagged: frozenset[int] = frozenset()
    ended: Mapping[str, Any] | None = None  # the table's own GameEnded
    # Turn-based (services.kernel.table.speed): a bank never holds more than bank_max_ms;
    # presence marks no seat gone; take_over: a seat out of time is a bot's to the end.
    turn_based: bool = False
    bank_max_ms: int = 0
    take_over: bool = False
    vacations: tuple[int, ...] = ()  # per seat: on vacation until (ms); () none yet

    @property
    def left_seats(self) -> frozenset[int]:
        return frozenset(seat for seat, _ in self.left)

    @property
    def stand_ins(self) -> tuple[int, ...]:
        """Seats a bot plays now for a player who left or is gone."""
        return tuple(sorted(self.left_seats | set(self.gone)))

    def back_at(self, seat: int, now_ms: int) -> int:
        """When ``seat``'s clock may run: now, or the end of its player's vacation."""
        until = self.vacations[seat] if 0 <= seat < len(self.vacations) else 0
        return max(now_ms, until)

    @property
    def quiet(self) -> bool:
        """Nothing of the table to show: the game's view and status stand as they are."""
        return not (self.left or self.gone or self.bank_ms or self.ended)


def created(t: Table[Any], e: Event) -> Table[Any]:
    kinds = names(str(s.get("kind", "human")) for s in e.data.get("seats", []))
    options = e.data.get("options", {})
    bank = int(options.get("bank_timer") or 0) * 1000
    n = len(kinds)
    return t.but(
        kinds=kinds,
        seed=str(e.data.get("seed", "")),
        bank_ms=bank,
        increment_ms=int(options.get("bank_increment") or 0) * 1000,
        banks=(bank,) * n if bank else (),
        since=(0,) * n if bank else (),
        turn_based=options.get("speed") == "turn_based",
        bank_max_ms=int(options.get("bank_max") or 0) * 1000,
        take_over=options.get("on_time_out") == "take_over",
    )


TABLE_FOLDS: dict[str, Callable[[Table[Any], Any], Table[Any]]] = {
    "SeatLeft": lambda t, e: t.but(
        left=(*t.left, (e.seat, e.reason)),
        gone=tuple(s for s in t.gone if s != e.seat),
        claim_from_ms=e.claim_from_ms or t.claim_from_ms,
    ),
    "SeatGone": lambda t, e: t.but(gone=(*t.gone, e.seat), claim_from_ms=e.claim_from_ms),
    "SeatReturned": lambda t, e: t.but(
        gone=tuple(s for s in t.gone if s != e.seat), claim_from_ms=0
    ),
    "ClocksSet": lambda t, e: t.but(
        banks=tuple(e.banks), since=tuple(e.since), flagged=seats(e.flagged)
    ),
    "TimeRanOut": lambda t, e: t,  # said for the log; the bot's move follows
    "VacationSet": lambda t, e: t.but(
        vacations=tuple(
            e.until_ms if s == e.seat else u
            for s, u in enumerate(t.vacations or (0,) * len(t.kinds))
        )
    ),
}

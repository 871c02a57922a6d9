"""A table command's steps: each event folded as it is emitted (like services.kernel.flow),
then the clocks; and the rules of each table command."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from services.kernel.errors import RuleViolation
from services.kernel.events import stored
from services.kernel.game import ENGINE, Event
from services.kernel.rng import SeededRng
from services.kernel.table.commands import (
    ClaimWin,
    Concede,
    Flag,
    Leave,
    MarkGone,
    Return,
    Vacation,
)
from services.kernel.table.events import (
    ClocksSet,
    SeatGone,
    SeatLeft,
    SeatReturned,
    VacationSet,
)
from services.kernel.table.state import Table
from services.kernel.table.timeouts import bots_play

if TYPE_CHECKING:
    from services.kernel.table.wrapper import TableOf

S = TypeVar("S")


class Steps(Generic[S]):
    """A table command's events, each folded as it is emitted (like services.kernel.flow)."""

    def __init__(
        self,
        of: TableOf[S],
        t: Table[S],
        now_ms: int,
        events: list[Event] | None = None,
        state: Table[S] | None = None,
    ) -> None:
        self.of, self.now_ms = of, now_ms
        self.expired: set[int] = set()
        self.events = events or []
        self.state = t if state is None else state

    def emit(self, e: Event) -> None:
        self.events.append(e)
        self.state = self.of.evolve(self.state, e)

    def end(self, winners: Sequence[int], losers: Sequence[int], reason: str) -> None:
        data = {
            "winners": list(winners),
            "losers": list(losers),
            "reason": reason,
            "seed": self.state.seed,
            "by_table": True,
        }
        self.emit(Event("GameEnded", data, ENGINE))

    def expire_waiting(self, rng: SeededRng) -> None:
        """When every seat the game waits on is out of time on its bank, their bots play
        the moves they owe (services.kernel.table.timeouts)."""
        t = self.state
        if not t.flagged or t.ended is not None or self.of.g.expire is None:
            return
        st = self.of.g.status(t.game)
        if st.over or not st.to_act or not set(st.to_act) <= t.flagged:
            return
        self.expired = set(st.to_act)
        bots_play(self, st.to_act, rng, "bank")
        if t.take_over:  # turn-based, by the table's rule: a bot's seat to the end
            for seat in sorted(self.expired - self.state.left_seats):
                if t.kinds[seat] != "bot" and not self.of.g.status(self.state.game).over:
                    self.emit(stored(SeatLeft(seat, "timed_out")))

    def run_clocks(self, mover: int) -> None:
        clocks = self.of._clocks(self.state, {mover} | self.expired, self.now_ms)
        if clocks is not None:
            self.emit(clocks)


def _concede(steps: Steps[Any], seat: int, command: Concede | Leave) -> None:
    t = steps.state
    if not 0 <= seat < len(t.kinds) or t.kinds[seat] == "bot" or seat in t.left_seats:
        raise RuleViolation("only a player still at the table can leave it", "not_a_player")
    if steps.of.g.status(t.game).over:
        raise RuleViolation("the game is over", "game_over")
    reason = "conceded" if isinstance(command, Concede) else "left"
    others = [s for s in range(len(t.kinds)) if s != seat and s not in t.left_seats]
    if not others or (reason == "conceded" and len(t.kinds) == 2):
        steps.emit(stored(SeatLeft(seat, reason)))
        steps.end(others, [seat, *(s for s, _ in reversed(t.left))], reason)
        return
    claim = steps.now_ms if len(t.kinds) == 2 else 0
    steps.emit(stored(SeatLeft(seat, reason, claim), seat))


def _return(steps: Steps[Any], seat: int, command: Return) -> None:
    t = steps.state
    if seat not in t.gone:
        raise RuleViolation("no bot stands in for your seat", "not_gone")
    steps.emit(stored(SeatReturned(seat), seat))


def _claim(steps: Steps[Any], seat: int, command: ClaimWin) -> None:
    t = steps.state
    check_player(t, seat, False)
    other = [s for s in range(len(t.kinds)) if s != seat]
    if len(t.kinds) != 2 or not (set(other) <= t.left_seats | set(t.gone)):
        raise RuleViolation(
            "only at a table of two whose other player left or is gone", "nothing_to_claim"
        )
    if steps.now_ms < t.claim_from_ms:
        left = (t.claim_from_ms - steps.now_ms + 999) // 1000
        raise RuleViolation(f"the other player may come back for {left} s", "claim_too_early")
    steps.end([seat], other, "claimed")


def _flag(steps: Steps[Any], seat: int, command: Flag) -> None:
    t = steps.state
    out = [
        s
        for s, started in enumerate(t.since)
        if started and s not in t.flagged and started + t.banks[s] <= steps.now_ms
    ]
    if not t.bank_ms or not out:
        raise RuleViolation("no time bank has run out", "clock_running")
    banks = list(t.banks)
    for s in out:
        banks[s] = 0
    steps.emit(stored(ClocksSet(banks, list(t.since), sorted(t.flagged | set(out)))))


def _mark_gone(steps: Steps[Any], seat: int, command: MarkGone) -> None:
    t = steps.state
    if seat != ENGINE:
        raise RuleViolation("only the engine marks a seat gone", "not_allowed")
    target = command.seat
    if t.turn_based:
        raise RuleViolation("a turn-based seat's clock decides, not its presence", "turn_based")
    if target >= len(t.kinds) or t.kinds[target] == "bot" or target in t.stand_ins:
        raise RuleViolation("that seat is not a player's seat at the table", "not_a_player")
    if steps.of.g.status(t.game).over:
        raise RuleViolation("the game is over", "game_over")
    claim = steps.now_ms + command.claim_after_s * 1000 if len(t.kinds) == 2 else 0
    steps.emit(stored(SeatGone(target, claim)))


def _vacation(steps: Steps[Any], seat: int, command: Vacation) -> None:
    """A turn-based seat's clock stops until the vacation ends: time spent so far is
    charged, and the clock starts again at ``until_ms`` (docs/turn-based.md)."""
    t = steps.state
    if seat != ENGINE:
        raise RuleViolation("vacations are set through your account", "not_allowed")
    if not t.turn_based:
        raise RuleViolation("only turn-based tables pause for a vacation", "not_turn_based")
    target = command.seat
    if target >= len(t.kinds) or t.kinds[target] == "bot":
        raise RuleViolation("that seat is not a player's seat at the table", "not_a_player")
    if steps.of.g.status(t.game).over:
        raise RuleViolation("the game is over", "game_over")
    steps.emit(stored(VacationSet(target, command.until_ms)))
    banks, since = list(steps.state.banks), list(steps.state.since)
    if since[target]:
        started = min(since[target], steps.now_ms)  # a clock already paused: nothing spent
        banks[target] = max(0, banks[target] - max(0, steps.now_ms - started))
        since[target] = steps.state.back_at(target, steps.now_ms)
        steps.emit(stored(ClocksSet(banks, since, sorted(steps.state.flagged))))


TABLE_DECIDE: dict[type, Callable[[Steps[Any], int, Any], None]] = {
    Concede: _concede,
    Leave: _concede,
    Return: _return,
    ClaimWin: _claim,
    Flag: _flag,
    MarkGone: _mark_gone,
    Vacation: _vacation,
}


def check_player(t: Table[Any], seat: int, stand_in: bool) -> None:
    """A stand-in's move needs a seat a bot stands in for; a player's, their own seat."""
    if seat < 0 or seat >= len(t.kinds):
        if stand_in:
            raise RuleViolation("no such seat", "not_a_player")
        return  # the engine's own commands (timeouts) and spectators: the game decides
    taken = seat in t.stand_ins
    if stand_in and not taken:
        raise RuleViolation("this seat's player plays it", "not_taken_over")
    if not stand_in and taken:
        code = "seat_left" if seat in t.left_seats else "seat_gone"
        raise RuleViolation(
            "a bot plays this seat now"
            + ("; send return to take it back" if code == "seat_gone" else ""),
            code,
        )

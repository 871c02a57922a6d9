"""Pebbles' rules: take 1-3, never more than the pile; the last pebble wins."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.kernel.errors import RuleViolation
from services.kernel.flow import Flow
from services.kernel.game import Decision, Event, Status
from services.kernel.rng import SeededRng
from tests.games.pebbles import events as ev
from tests.games.pebbles.commands import Take
from tests.games.pebbles.evolve import evolve
from tests.games.pebbles.options import options
from tests.games.pebbles.state import State

__all__ = ["decide", "options", "result_keys", "setup", "status"]


def setup(state: State, opts: Mapping[str, Any], rng: SeededRng, now_ms: int = 0) -> list[Event]:
    flow = Flow(state, evolve, now_ms=now_ms)
    flow.emit(ev.LuckyNumbersDrawn([rng.below(9) + 1 for _ in range(state.seat_count)]))
    flow.emit(ev.TurnStarted(0))
    return flow.events


def decide(
    state: State, seat: int, command: Take, rng: SeededRng, now_ms: int = 0
) -> Decision[State]:
    if state.over:
        raise RuleViolation("the game is over", "game_over")
    if seat != state.turn:
        raise RuleViolation("it is not your turn", "not_your_turn")
    if command.count > state.pile:
        raise RuleViolation(f"only {state.pile} pebbles are left", "not_enough_pebbles")
    flow = Flow(state, evolve, actor=seat, now_ms=now_ms)
    flow.emit(ev.PebblesTaken(seat, command.count))
    if flow.state.pile == 0:
        flow.emit(ev.GameEnded([seat], state.seed))
    else:
        flow.emit(ev.TurnStarted((seat + 1) % state.seat_count))
    return flow.decision()


def status(state: State) -> Status:
    if state.over:
        losers = tuple(s for s in range(state.seat_count) if s not in state.winners)
        return Status((), True, state.winners, losers)
    return Status((state.turn,) if state.turn >= 0 else ())


def result_keys(final_view: Mapping[str, Any]) -> list[float]:
    """Tournaments: the winner first."""
    winners = set(final_view["status"]["winners"])
    return [1.0 if seat in winners else 0.0 for seat in range(len(final_view["lucky"]))]

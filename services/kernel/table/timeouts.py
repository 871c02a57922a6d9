"""AL-3 (revised 2026-12-06): when a seat's time runs out (a turn or round timer's
deadline, or its time bank), the seat's bot, at the game's default level, plays the move
the seat owes, and the player stays seated: a timeout never ends a game a player could
still play. In a simultaneous phase the bot votes or chooses for each seat out of time.

Each such move follows a TimeRanOut event, so the move log says in words that time ran
out and a bot played for the seat. The bot sees only the seat's view and legal commands,
as a bot standing in always does, and draws from the command's seeded generator, so a
replay (and ``raffe verify``) decides the same move. Should the bot's move be refused (a
bot's bug), the game's documented default move (``GameSpec.expire``) is played instead,
so the table never stalls."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from services.kernel.commands import check_timeout
from services.kernel.errors import RaffeError
from services.kernel.events import stored
from services.kernel.rng import SeededRng
from services.kernel.table.events import TimeRanOut

if TYPE_CHECKING:
    from services.kernel.table.steps import Steps


def is_deadline_command(steps: Steps[Any], command: Any) -> bool:
    """Whether ``command`` is what the game's own clock sends at its deadline (its
    status's ``on_deadline``: "timeout", "close_round", ...)."""
    if getattr(command, "type", None) not in steps.of.g.clock_commands:
        return False  # a player's move: no look at the status on the command path
    on = steps.of.g.status(steps.state.game).detail.get("on_deadline")
    return isinstance(on, dict) and getattr(command, "type", None) == on.get("type")


def turn_ran_out(steps: Steps[Any], rng: SeededRng) -> None:
    """The game's own timer ran out: the bots of the seats it waits on move."""
    st = steps.of.g.status(steps.state.game)
    check_timeout(st.over, int(st.detail.get("deadline_ms") or 0), steps.now_ms)
    steps.expired = set(st.to_act)  # their moves, made for them, charge their clocks
    bots_play(steps, st.to_act, rng, "turn")


def bots_play(steps: Steps[Any], seats: Sequence[int], rng: SeededRng, clock: str) -> None:
    """Each of ``seats`` that the game still waits on: TimeRanOut, then its bot's move."""
    g = steps.of.g
    for seat in seats:
        st = g.status(steps.state.game)
        if st.over or seat not in st.to_act:
            continue
        steps.emit(stored(TimeRanOut(seat, clock)))
        game = steps.state.game
        try:
            chosen = g.bot(g.default_bot)(g.view(game, seat), g.legal_commands(game, seat), rng)
            decided = g.decide(game, seat, g.command(chosen), rng, steps.now_ms)
        except RaffeError:
            if g.expire is None:
                raise
            decided = g.expire(game, (seat,), rng, steps.now_ms)
        steps.events.extend(decided.events)
        steps.state = steps.state.but(game=decided.state)

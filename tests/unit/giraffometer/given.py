"""Given events / when command / then events, for Giraffometer rule tests."""

from __future__ import annotations

from typing import Any

from services.giraffometer import rules
from services.giraffometer.evolve import evolve
from services.giraffometer.game import GAME
from services.giraffometer.state import State
from services.kernel.game import Event, SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng

SEED = "gm-seed"
# Six facts of a custom deck with known answers: position n holds answer FACTS[n-1].
ANSWERS = [50, 7, 900, 3000, 120, 64]


def deck(answers: list[int] = ANSWERS, extra: int = 6) -> dict[str, Any]:
    values = [*answers, *range(10_000 - extra, 10_000)]
    return {
        "name": "test deck",
        "facts": [
            {
                "id": f"f{i}",
                "question": f"How big is thing {i}?",
                "unit": "units",
                "answer": a,
                "source": "made up for tests",
            }
            for i, a in enumerate(values)
        ],
    }


def ordered(players: int = 3, **options: Any) -> State:
    """Round 1 of a game on the test deck with facts f0..f5 on positions 1..6: the real
    opening events, with the shuffle replaced by the deck's own order."""
    options.setdefault("deck", deck())
    p = Playthrough.start(GAME, options, [SeatSpec("human")] * players, SEED, now_ms=1_000)
    events = [e for e in p.events if e.type not in ("DeckShuffled", "RoundStarted")]
    order = [f"f{i}" for i in range(12)]
    state = GAME.initial()
    for e in events:
        state = evolve(state, e)
    state = evolve(state, Event("DeckShuffled", {"order": order}))
    facts = [state.facts[i].public() for i in order[:6]]
    deadline = 1_000 + options["round_timer"] * 1000 if options.get("round_timer") else 0
    started = {"round": 1, "ids": order[:6], "facts": facts, "deadline_ms": deadline}
    return evolve(state, Event("RoundStarted", started))


def when(state: State, seat: int, now_ms: int = 2_000, **command: Any) -> list[Event]:
    return rules.decide(state, seat, GAME.command(command), SeededRng(SEED, 7), now_ms).events


def vote(lowest: int, highest: int) -> dict[str, Any]:
    return {"type": "vote", "lowest": lowest, "highest": highest}


def fold(state: State, events: list[Event]) -> State:
    for e in events:
        state = evolve(state, e)
    return state

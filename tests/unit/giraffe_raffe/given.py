"""Given events / when command / then events, for Giraffe Raffe rule tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.giraffe_raffe import rules
from services.giraffe_raffe.cards import DECK
from services.giraffe_raffe.evolve import evolve
from services.giraffe_raffe.game import GAME
from services.giraffe_raffe.state import State
from services.kernel.game import Event, SeatSpec
from services.kernel.playthrough import created_event
from services.kernel.rng import SeededRng

SEED = "given-seed"


def created(players: int = 2, **options: Any) -> Event:
    seats = [SeatSpec("human")] * players
    return created_event(GAME.options(options, seats), seats, SEED)


def dealt(
    hands: Sequence[Sequence[str]],
    redraw: Sequence[str] = ("R15", "B15", "Y15", "G15"),
    robot_deck: Sequence[str] = (),
    dealer: int = 0,
    round_: int = 1,
) -> Event:
    used = {c for h in hands for c in h} | set(redraw) | set(robot_deck)
    out = [c for c in DECK if c not in used]
    return Event(
        "CardsDealt",
        {
            "round": round_,
            "dealer": dealer,
            "hands": [list(h) for h in hands],
            "redraw": list(redraw),
            "out": out,
            "robot_deck": list(robot_deck),
        },
    )


def turn(seat: int) -> Event:
    return Event("TurnStarted", {"seat": seat})


def played(
    seat: int, tree: str, cards: Sequence[str], copies: dict[str, str] | None = None
) -> Event:
    return Event(
        "CardsPlayed",
        {"seat": seat, "tree": tree, "cards": list(cards), "copies": copies or {}},
        seat,
    )


def apples(seat: int, count: int) -> Event:
    return Event("ApplesTaken", {"seat": seat, "count": count})


def given(*events: Event) -> State:
    return evolve.replay(events, State())


def when(state: State, seat: int, **command: Any) -> list[Event]:
    return rules.decide(state, seat, GAME.command(command), SeededRng(SEED, 99)).events


def types(events: Sequence[Event]) -> list[str]:
    return [e.type for e in events]


def play(tree: str, *cards: str, **copies: str) -> dict[str, Any]:
    command: dict[str, Any] = {"type": "play", "tree": tree, "cards": list(cards)}
    if copies:
        command["copies"] = copies
    return command

"""Driving Riff Raff games in tests: real opening events, commands through decide."""

from __future__ import annotations

from typing import Any

from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.riff_raff.game import GAME
from services.riff_raff.rules import phase, status
from services.riff_raff.state import State, Turn


def start(players: int = 2, seed: str = "rr", **options: Any) -> Playthrough[State]:
    return Playthrough.start(GAME, options, [SeatSpec("human")] * players, seed)


def choose(p: Playthrough[State], cards: dict[int, int]) -> None:
    for seat, card in cards.items():
        p.execute(seat, {"type": "choose_card", "card": card})


def turn_of(p: Playthrough[State]) -> Turn:
    """The turn being played (a test that reads it expects one)."""
    assert p.state.turn is not None
    return p.state.turn


def active(p: Playthrough[State]) -> int:
    return status(p.state).to_act[0]


def load(p: Playthrough[State], piece: str = "box", position: float = 0.5, **extra: Any) -> list:
    cargo = {"piece": piece, "position": position, "orientation": 0, **extra}
    return p.execute(active(p), {"type": "load", "pieces": [cargo]})


def tabletop_move(p: Playthrough[State], rng: SeededRng) -> None:
    """A random but legal tabletop move by whoever must act."""
    s, seat = p.state, active(p)
    ph = phase(s)
    if ph == "choose":
        p.execute(seat, {"type": "choose_card", "card": rng.choice(s.hands[seat])})
    elif ph == "choose_captain":
        p.execute(seat, {"type": "choose_captain", "seat": rng.choice(s.pending["seats"])})
    elif ph == "order_players":
        p.execute(seat, {"type": "order_players", "order": rng.shuffled(s.pending["seats"])})
    elif ph == "load":
        piece = rng.choice(s.supplies[seat]).split("-")[1]
        p.execute(seat, {"type": "load", "pieces": [{"piece": piece}]})
    elif ph in ("report", "settle"):
        aboard = list(s.aboard)
        fell = [x for x in aboard if rng.random() < 0.1]
        caught = fell[: rng.below(min(2, len(fell)) + 1)] if fell else []
        p.execute(seat, {"type": ph, "fell": fell, "caught": caught})
    elif ph == "review":
        p.execute(seat, {"type": "dispute" if rng.random() < 0.1 else "accept"})


def play_until_fall(p: Playthrough[State]) -> list:
    """Load tall pieces at the outer ends until something falls; the events of that load."""
    for _ in range(200):
        ph, seat = phase(p.state), active(p)
        if ph == "choose":
            p.execute(seat, {"type": "choose_card", "card": max(p.state.hands[seat])})
        elif ph in ("choose_captain", "order_players"):
            field = "seat" if ph == "choose_captain" else "order"
            seats = p.state.pending["seats"]
            p.execute(seat, {"type": ph, field: seats[0] if field == "seat" else seats})
        elif ph == "load":
            kind = next(
                k
                for k in ("sailor", "flacon", "barrel", "chest", "box", "rat", "boat", "plank")
                if any(x.split("-")[1] == k for x in p.state.supplies[seat])
            )
            edge = 1.0 if p.state.turn.area % 2 == 0 else 0.0
            events = p.execute(
                seat, {"type": "load", "pieces": [{"piece": kind, "position": edge}]}
            )
            if any(e.type == "PieceLoaded" and e.data["outcome"]["fell"] for e in events):
                return events
        else:
            raise AssertionError(f"unexpected phase {ph}")
    raise AssertionError("nothing fell")

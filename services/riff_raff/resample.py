"""A whole Riff Raff state consistent with one seat's view (#53, docs/bots.md).

Almost everything in Riff Raff is in the open: the ship (every piece, where it lies, the
tilt), the supplies, the cards each seat has revealed. What a seat cannot see is the
card each other seat chose this round before the reveal (it sees only who chose), and,
at the tabletop ship, which area each piece aboard was loaded into (the view lists what
is aboard). ``resample`` draws each hidden card from that seat's remaining hand and
rebuilds the rest from the view, so ``view(resample(v, rng), seat) == v``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from services.kernel.commitment import commitment
from services.kernel.rng import SeededRng
from services.riff_raff.pieces import piece_ids
from services.riff_raff.ship import Placed
from services.riff_raff.state import CARDS, Choice, State, Turn

DECK = 1  # any deck area carries a piece on the deck (ship.Placed.surface)


def _hands(view: Mapping[str, Any]) -> tuple[int, tuple[tuple[int, ...], ...]]:
    """How many passes through the cards (two players: the cards come back once, RR-6)
    and each seat's cards left in this pass."""
    played = [list(p) for p in view["played"]]
    most = max(len(p) for p in played)
    # After the tenth round the cards come back when the next one starts: a hand of its
    # own, or seats choosing again, say they did.
    back = most > len(CARDS) or bool(view.get("hand")) or view["phase"] == "choose"
    passes = 2 if len(played) == 2 and most >= len(CARDS) and back else 1
    now = [p[len(CARDS) :] if passes == 2 else p for p in played]
    return passes, tuple(tuple(c for c in CARDS if c not in p) for p in now)


def _choice(card: int, rng: SeededRng) -> Choice:
    salt = f"{rng.below(1 << 62):x}"
    return Choice(card, salt, commitment(salt, card))


def _choices(
    view: Mapping[str, Any], hands: Sequence[tuple[int, ...]], rng: SeededRng
) -> tuple[tuple[int, Choice], ...]:
    out = []
    for chooser in view["chosen"]:
        if view.get("choices") is not None:  # revealed (the game is over)
            card = int(view["choices"][str(chooser)])
        elif chooser == view["seat"] and view.get("your_card") is not None:
            card = int(view["your_card"])
        else:
            card = rng.choice(hands[chooser])
        out.append((chooser, _choice(card, rng)))
    return tuple(out)


def _turn(shown: Mapping[str, Any] | None) -> Turn | None:
    if shown is None:
        return None
    fallen = tuple((f["id"], float(f["height"])) for f in shown["fallen"])
    return Turn(
        shown["seat"],
        shown["area"],
        tuple(shown["loaded"]),
        shown["double"],
        fallen,
        shown["report"],
        tuple(shown["accepted"]),
        shown["disputed"],
    )


def _surface(area: int) -> int:
    """A yardarm's area is its surface; a piece on the deck lies on the deck."""
    return area if area >= 5 else DECK


def _ship(view: Mapping[str, Any]) -> tuple[float, tuple[Placed, ...]]:
    ship = view["ship"]
    if "pieces" not in ship:
        return 0.0, ()
    pieces = tuple(
        Placed(
            p["id"], p["area"] if p["area"] >= 5 else DECK, p["x"], p["y"], p["width"], p["height"]
        )
        for p in ship["pieces"]
    )
    return math.radians(ship["tilt_degrees"]), pieces


def resample(view: Mapping[str, Any], rng: SeededRng) -> State:
    passes, hands = _hands(view)
    if view.get("hands") is not None:  # revealed: the hands as shown
        hands = tuple(tuple(h) for h in view["hands"])
    seats = len(view["supplies"])
    tilt, ship = _ship(view)
    aboard = tuple(view["ship"].get("aboard", ()))
    turn = _turn(view["turn"])
    placed = {p.id for p in ship} | set(aboard) | {f for f, _ in (turn.fallen if turn else ())}
    placed |= {p for supply in view["supply_ids"] for p in supply}
    every = [p for seat in range(seats) for p in piece_ids(seat, 2 if seats == 2 else 1)]
    status = view["status"]
    order = tuple(view["order"])
    return State(
        options=dict(view["options"]),
        seat_count=seats,
        seed=view.get("seed") or "",
        seed_hash=view["seed_hash"],
        practice=view["practice"],
        hands=hands,
        played=tuple(tuple(p) for p in view["played"]),
        passes=passes,
        round=view["round"],
        choices=_choices(view, hands, rng),
        revealed={int(k): int(v) for k, v in view["revealed"].items()},
        captain=view["captain"],
        pending=view["pending"],
        order=order,
        turn_index=order.index(turn.seat) if turn and turn.seat in order else 0,
        turn=turn,
        supplies=tuple(tuple(s) for s in view["supply_ids"]),
        removed=tuple(p for p in every if p not in placed),
        tilt=tilt,
        ship=ship,
        aboard=aboard,
        aboard_areas=tuple((p, DECK) for p in aboard),  # which area: not in any view
        over=status["over"],
        winners=tuple(status["winners"]),
        deadline_ms=int(status.get("deadline_ms", 0)),
    )

"""A whole Giraffe Raffe state consistent with one seat's view (#53, docs/bots.md).

What a seat cannot see is where the cards it has not seen lie: the other hands, the
Redraw pile (and its order), the Robot's deck in the solo game, and the cards out of the
round. Everything else (the trees and their plays, apples, the Robot's hand, whose turn
it is) is in the view. ``resample`` deals the unseen cards at random into those places,
every count as the view gives it, so ``view(resample(v, rng), seat) == v``: a search bot
that plays on sampled states can only know what the seat knows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.giraffe_raffe.cards import COLOUR_NAMES, DECK
from services.giraffe_raffe.state import RobotTie, State
from services.giraffe_raffe.trees import Play, Tree
from services.kernel.rng import SeededRng

LETTER = {name: letter for letter, name in COLOUR_NAMES.items()}


def _play(p: Mapping[str, Any]) -> Play:
    return Play(int(p["seat"]), tuple(p["cards"]), tuple(dict(p["copies"]).items()))


def _tree(t: Mapping[str, Any]) -> Tree:
    colours = tuple(LETTER[c] for c in t["colours"])
    return Tree(t["id"], t["kind"], colours, tuple(_play(p) for p in t["plays"]))


def _seen(view: Mapping[str, Any]) -> set[str]:
    """Every card whose place the seat knows: its hand, the trees, the Robot's hand."""
    seen = set(view["hand"] or ())
    for t in view["trees"]:
        for p in t["plays"]:
            seen.update(p["cards"])
    if view.get("robot"):
        seen.update(view["robot"]["hand"])
    return seen


def resample(view: Mapping[str, Any], rng: SeededRng) -> State:
    """A full state the seat of ``view`` cannot tell from the real one."""
    seat = int(view["seat"])
    if view.get("hands") is not None:  # revealed: only which cards are out is not shown
        shown = [tuple(h) for h in view["hands"]]
        redraw, deck = view["redraw"], view["robot_deck"]
        placed = _seen(view).union(*shown, redraw, deck)
        return _state(view, shown, redraw, deck, sorted(set(DECK) - placed))
    unseen = rng.shuffled(sorted(set(DECK) - _seen(view)))
    robot = view.get("robot")
    hands: list[tuple[str, ...]] = []
    for p in view["players"]:
        if p["index"] == seat:
            hands.append(tuple(view["hand"]))
        elif p["robot"]:
            hands.append(tuple(robot["hand"]) if robot else ())
        else:
            hands.append(tuple(unseen[: p["hand_size"]]))
            unseen = unseen[p["hand_size"] :]
    redraw, unseen = unseen[: view["redraw_size"]], unseen[view["redraw_size"] :]
    deck_size = robot["deck_size"] if robot else 0
    robot_deck, out = unseen[:deck_size], unseen[deck_size:]
    return _state(view, hands, redraw, robot_deck, out)


def _state(
    view: Mapping[str, Any],
    hands: Sequence[tuple[str, ...]],
    redraw: Sequence[str],
    robot_deck: Sequence[str],
    out: Sequence[str] = (),
) -> State:
    status, players = view["status"], view["players"]
    tie = view.get("robot_tie")
    return State(
        options=dict(view["options"]),
        seat_count=sum(1 for p in players if not p["robot"]),
        seed=view.get("seed") or "",
        seed_hash=view["seed_hash"],
        practice=view["practice"],
        round=view["round"],
        dealer=view["dealer"],
        turn=view["turn"],
        hands=tuple(hands),
        apples=tuple(p["apples"] for p in players),
        rotten=tuple(p["rotten_apples"] for p in players),
        supply=view["supply"],
        redraw=tuple(redraw),
        out=tuple(out),
        robot_deck=tuple(robot_deck),
        trees=tuple(_tree(t) for t in view["trees"]),
        robot_tie=RobotTie(tie["tree"], tuple(_play(p) for p in tie["options"])) if tie else None,
        over=status["over"],
        winners=tuple(status["winners"]),
        losers=tuple(status["losers"]),
        deadline_ms=int(status.get("deadline_ms", 0)),
    )

"""What leaves the engine (DESIGN §6): a seat's view, redacted events and the compact
form of the legal commands. Everything is public once the game is over."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import Field

from services.giraffe_raffe.cards import COLOUR_NAMES, sorted_cards
from services.giraffe_raffe.plays import can_play, value_options
from services.giraffe_raffe.rules import status
from services.giraffe_raffe.state import State
from services.giraffe_raffe.trees import VALUE_KINDS, Need, Play, Tree, need
from services.kernel.game import Event
from services.kernel.views import Shape, StatusShape

SHAPES = {
    "single": "1 card of a colour the tree shows",
    "pair": "2 cards of one value",
    "three": "3 cards of one value",
    "four": "4 cards of one value",
    "straight": "distinct consecutive values, any colours, no Copy",
    "color": "cards of one colour",
    "free": "any cards",
}


def _play_json(p: Play) -> dict[str, Any]:
    return {"seat": p.seat, "cards": list(p.cards), "copies": dict(p.copies)}


# Tree -> its JSON, by identity: a tree no play changed is the same object from state to
# state, so this is one dict lookup where an lru_cache hashed every play on the tree
# on every view (it showed in the engine's profile). Each entry
# holds its tree, so an id is never reused while its entry stands.
_TREE_JSON: dict[tuple[int, str], tuple[Tree, dict[str, Any]]] = {}
TREE_JSON_ENTRIES = 4096


def _tree_json(t: Tree, count_rule: str) -> dict[str, Any]:
    """Cached per (immutable) tree: every seat's view and every view of an unchanged tree
    share one dict, so the projection, which writes every seat's view after each event,
    builds each tree once. Callers serialise views; none may mutate them."""
    hit = _TREE_JSON.get((id(t), count_rule))
    if hit is not None and hit[0] is t:
        return hit[1]
    n = need(t, count_rule)
    out = {
        "id": t.id,
        "kind": t.kind,
        "colours": [COLOUR_NAMES[c] for c in t.colours],
        "plays": [_play_json(p) for p in t.plays],
        "need": {"min_cards": n.min_cards, "max_cards": n.max_cards, "above": n.above},
    }
    if len(_TREE_JSON) >= TREE_JSON_ENTRIES:  # the trees of games long moved on
        _TREE_JSON.clear()
    _TREE_JSON[(id(t), count_rule)] = (t, out)
    return out


def view(state: State, seat: int, reveal: bool = False) -> dict[str, Any]:
    reveal = reveal or state.over
    players = [
        {
            "index": p,
            "robot": p == state.robot,
            "hand_size": len(state.hands[p]),
            "apples": state.apples[p],
            "rotten_apples": state.rotten[p],
        }
        for p in range(state.players)
    ]
    out: dict[str, Any] = {
        "game": "giraffe-raffe",
        "mode": state.mode,
        "options": state.options,
        "seat": seat,
        "round": state.round,
        "dealer": state.dealer,
        "turn": state.turn,
        "players": players,
        "hand": list(sorted_cards(state.hands[seat])) if 0 <= seat < state.seat_count else None,
        "trees": [_tree_json(t, state.options.get("count_rule", "more")) for t in state.trees],
        "supply": state.supply,
        "redraw_size": len(state.redraw),
        "status": status(state).to_json(),
        "seed_hash": state.seed_hash,
        "practice": state.practice,
    }
    if state.solo:
        out["robot"] = {
            "hand": list(sorted_cards(state.hands[state.robot])),  # the player runs it: public
            "deck_size": len(state.robot_deck),
        }
    if state.robot_tie is not None:
        out["robot_tie"] = {
            "tree": state.robot_tie.tree,
            "options": [_play_json(p) for p in state.robot_tie.options],
        }
    if reveal:
        out["seed"] = state.seed
        out["hands"] = [list(sorted_cards(h)) for h in state.hands]
        out["redraw"] = list(state.redraw)
        out["robot_deck"] = list(state.robot_deck)
    return out


def redact(state: State, event: Event, seat: int) -> Event:
    """The event as ``seat`` may see it while the game runs."""
    d = event.data
    if event.type == "CardsDealt":
        hands = d["hands"]
        visible = {p: list(h) for p, h in enumerate(hands) if p == seat or (state.solo and p == 1)}
        data = {
            "round": d["round"],
            "dealer": d["dealer"],
            "hand_sizes": [len(h) for h in hands],
            "hands": {str(p): h for p, h in visible.items()},
            "redraw_size": len(d["redraw"]),
            "out_size": len(d["out"]),
            "robot_deck_size": len(d.get("robot_deck", ())),
        }
        return Event(event.type, data, event.actor)
    if event.type == "RedrawCardTaken" and (d["seat"] != seat or d.get("to") == "robot_deck"):
        return Event(event.type, {k: v for k, v in d.items() if k != "card"}, event.actor)
    return event


def legal_commands(state: State, seat: int) -> dict[str, Any]:
    """The compact form: per tree whether it is playable and what a selection must meet;
    explicit options only where they are few (Single, Pair, Three, Four)."""
    st = status(state)
    out: dict[str, Any] = {"seat": seat, "to_act": seat in st.to_act, "commands": []}
    if seat not in st.to_act:
        return out
    if state.robot_tie is not None:
        options = [_play_json(p) | {"option": i} for i, p in enumerate(state.robot_tie.options)]
        out["commands"].append({"type": "choose_robot_play", "options": options})
        return out
    if state.apples[seat] > 0:
        out["commands"].append({"type": "return_apple"})
    hand = state.hands[seat]
    rule = state.options["count_rule"]
    for tree in state.trees:
        n = need(tree, rule)
        playable = can_play(n, hand)
        entry: dict[str, Any] = {**_rule_json(tree.id, n), "playable": playable}
        if playable and tree.kind in VALUE_KINDS:
            entry["options"] = [list(cards) for cards in value_options(n, hand)]
        out["commands"].append(entry)
    return out


@lru_cache(maxsize=4096)
def _rule_json(tree_id: str, n: Need) -> dict[str, Any]:
    """The constraints part of a tree's entry; shared, so callers copy before changing."""
    return {
        "type": "play",
        "tree": tree_id,
        "kind": n.kind,
        "shape": SHAPES[n.kind],
        "min_cards": n.min_cards,
        "max_cards": n.max_cards,
        "above": n.above,
        "colours": [COLOUR_NAMES[c] for c in n.colours],
    }


# -- the view's shape, for clients (services/kernel/views.py) ---------------------------


class PlayShape(Shape):
    seat: int
    cards: list[str]
    copies: dict[str, str]


class TreeShape(Shape):
    id: str
    kind: str
    colours: list[str]
    plays: list[PlayShape]
    need: dict[str, int | None]


class PlayerShape(Shape):
    index: int
    robot: bool
    hand_size: int
    apples: int
    rotten_apples: int


class GiraffeRaffeView(Shape):
    """A seat's (or a spectator's) view of a Giraffe Raffe game."""

    game: Literal["giraffe-raffe"]
    mode: str
    options: dict[str, Any]
    seat: int
    round: int
    dealer: int
    turn: int
    players: list[PlayerShape]
    hand: list[str] | None
    trees: list[TreeShape]
    supply: int
    redraw_size: int
    status: StatusShape
    seed_hash: str
    practice: bool  # a practice game: its creator chose the seed and knows every deal
    robot: dict[str, Any] | None = None  # the solo game: the Robot's hand is public
    robot_tie: dict[str, Any] | None = None
    seed: str | None = None  # once over (or a revealed replay), as the next three
    hands: list[list[str]] | None = None
    redraw: list[str] | None = None
    robot_deck: list[str] | None = None


# -- the legal commands' shape, for clients -----------------------------------------------


class PlayEntry(Shape):
    """A tree: whether a play from the hand fits it now, and what a play must meet;
    ``options`` lists every play on Single, Pair, Three and Four trees."""

    type: Literal["play"]
    tree: str
    kind: str
    shape: str
    min_cards: int
    max_cards: int | None
    above: int | None
    colours: list[str]
    playable: bool
    options: list[list[str]] | None = None


class ReturnAppleEntry(Shape):
    type: Literal["return_apple"]


class RobotOptionShape(Shape):
    seat: int
    cards: list[str]
    copies: dict[str, str]
    option: int


class ChooseRobotPlayEntry(Shape):
    type: Literal["choose_robot_play"]
    options: list[RobotOptionShape]


class GiraffeRaffeLegal(Shape):
    """A seat's legal commands in Giraffe Raffe (GET .../commands adds ``version``)."""

    seat: int
    to_act: bool
    commands: list[
        Annotated[PlayEntry | ReturnAppleEntry | ChooseRobotPlayEntry, Field(discriminator="type")]
    ]

"""Bots see only a seat's view and its legal commands (DESIGN §2).

* ``random``: picks uniformly among the actions it has (an apple, each playable tree),
  then a random legal play on the chosen tree.
* ``heuristic``: keeps its apples for emergencies, plays the cheapest play that keeps
  high cards and combinations, and likes plays that pay apples or a card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import islice
from typing import Any

from services.giraffe_raffe.cards import FACE, is_copy
from services.giraffe_raffe.plays import by_colour, plays
from services.giraffe_raffe.trees import Need
from services.giraffe_raffe.turns import copies_of
from services.kernel.rng import SeededRng

Command = dict[str, Any]
Bot = Callable[[dict[str, Any], dict[str, Any], SeededRng], Command]
COPY_COST = 3.0  # a Copy fits any set: the dearest card to spend
REWARD = {"pair": 1.2, "three": 1.6, "straight": 1.6, "color": 1.6, "free": 1.6, "four": 3.2}


def _need(entry: dict[str, Any]) -> Need:
    colours = tuple(c[0].upper() for c in entry["colours"])
    return Need(entry["kind"], entry["min_cards"], entry["max_cards"], entry["above"], colours)


def _command(tree: str, cards: Sequence[str]) -> Command:
    return {"type": "play", "tree": tree, "cards": list(cards), "copies": copies_of(cards)}


def _special(legal: dict[str, Any], rng: SeededRng) -> Command | None:
    for c in legal["commands"]:
        if c["type"] == "choose_robot_play":
            return {"type": "choose_robot_play", "option": rng.below(len(c["options"]))}
    return None


# -- random ------------------------------------------------------------------------


def random_selection(n: Need, hand: Sequence[str], rng: SeededRng) -> list[str]:
    """A uniformly sized random legal play on a Straight, Color or Free tree."""
    numbered = [c for c in hand if not is_copy(c)]
    copies = [c for c in hand if is_copy(c)]
    if n.kind == "straight":
        runs = list(islice(plays(Need(n.kind, n.min_cards, n.min_cards), numbered), 200))
        return list(rng.choice(runs))
    pools = [numbered] if n.kind == "free" else list(by_colour(numbered).values())
    pools = [p for p in pools if len(p) + len(copies) >= n.min_cards]
    pool = rng.choice(pools)
    top = min(n.max_cards or 99, len(pool) + len(copies), n.min_cards + 2)
    size = n.min_cards + rng.below(top - n.min_cards + 1)
    lowest_m = max(1, size - len(copies))
    m = lowest_m + rng.below(min(size, len(pool)) - lowest_m + 1)
    return rng.shuffled(pool)[:m] + copies[: size - m]


def random_bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> Command:
    special = _special(legal, rng)
    if special:
        return special
    actions = [c for c in legal["commands"] if c["type"] == "return_apple" or c["playable"]]
    action = rng.choice(actions)
    if action["type"] == "return_apple":
        return {"type": "return_apple"}
    if "options" in action:
        return _command(action["tree"], rng.choice(action["options"]))
    return _command(action["tree"], random_selection(_need(action), view["hand"], rng))


# -- heuristic ---------------------------------------------------------------------


def card_costs(hand: Sequence[str]) -> dict[str, float]:
    """What each card is worth keeping: high values, members of sets and runs, Copies."""
    values = Counter(FACE[c][1] for c in hand if not is_copy(c))
    costs: dict[str, float] = {}
    for c in hand:
        if is_copy(c):
            costs[c] = COPY_COST
            continue
        v = FACE[c][1]
        neighbours = (v - 1 in values) + (v + 1 in values)
        costs[c] = 1.0 + v / 15 + 0.5 * (values[v] - 1) + 0.2 * neighbours
    return costs


def _cheapest(
    pool: Sequence[str], copies: Sequence[str], size: int, costs: dict[str, float]
) -> list[str]:
    ordered = sorted(pool, key=lambda c: costs[c])
    m = min(len(ordered), size)
    return ordered[:m] + list(copies[: size - m])


def candidates(
    entry: dict[str, Any], hand: Sequence[str], costs: dict[str, float]
) -> list[list[str]]:
    if "options" in entry:
        return [list(o) for o in entry["options"]]
    return shaped_candidates(_need(entry), hand, costs)


def shaped_candidates(n: Need, hand: Sequence[str], costs: dict[str, float]) -> list[list[str]]:
    """The plays worth pricing on a Straight, Color or Free tree: every shortest run on a
    Straight (up to 100), the cheapest shortest play from each pool on the others."""
    numbered = [c for c in hand if not is_copy(c)]
    copies = [c for c in hand if is_copy(c)]
    if n.kind == "straight":
        return [
            list(p) for p in islice(plays(Need(n.kind, n.min_cards, n.min_cards), numbered), 100)
        ]
    pools = [numbered] if n.kind == "free" else list(by_colour(numbered).values())
    return [
        _cheapest(p, copies, n.min_cards, costs)
        for p in pools
        if len(p) + len(copies) >= n.min_cards
    ]


def heuristic_bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> Command:
    special = _special(legal, rng)
    if special:
        return special
    hand = view["hand"]
    costs = card_costs(hand)
    apples_left = view["supply"]
    best: tuple[float, Command] | None = None
    for entry in legal["commands"]:
        if entry["type"] != "play" or not entry["playable"]:
            continue
        gain = REWARD.get(entry["kind"], 0.0)
        if entry["kind"] != "pair" and apples_left == 0:
            gain = 0.0
        for cards in candidates(entry, hand, costs):
            score = gain - sum(costs[c] for c in cards)
            if best is None or score > best[0]:
                best = (score, _command(entry["tree"], cards))
    if best is not None:
        return best[1]
    return {"type": "return_apple"}


BOTS: dict[str, Bot] = {"random": random_bot, "heuristic": heuristic_bot}

"""The Robot Giraffe's choice of play (GR-11), as a pure function of its hand and
the trees.

Trees are tried in the order Single > Four > Three > Pair > Straight > Color > Free;
on the first with a legal play the Robot plays the fewest cards allowed, using Copies
only where that tree has no play without them and then as few as possible, and the
lowest values. "Lowest" compares plays by the sum of their values, then by their
highest card, then the next (our ruling on what the rulebook leaves open). Plays that
tie on all of that differ only in colour: the player picks (``robot_ties =
player_chooses``) or red < blue < yellow < green decides (``fixed_order``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from services.giraffe_raffe.cards import COLOUR_RANK, FACE, is_copy
from services.giraffe_raffe.plays import plays
from services.giraffe_raffe.trees import Need, Tree, need

PRIORITY = ("single", "four", "three", "pair", "straight", "color", "free")

Key = tuple[int, int, int, tuple[int, ...]]


def _key(cards: Sequence[str]) -> Key:
    values = sorted((FACE[c][1] for c in cards if not is_copy(c)), reverse=True)
    copies = sum(1 for c in cards if is_copy(c))
    return (len(cards), copies, sum(values), tuple(values))


def best_plays(n: Need, hand: Sequence[str]) -> list[tuple[str, ...]]:
    """Every play on this tree that the Robot likes best (ties differ only in colour)."""
    # Fewest cards first: a larger legal play always has a legal subset of the minimum
    # size (a sub-run, fewer cards of one colour, fewer of any), so enumerate only those.
    fewest = replace(n, max_cards=n.min_cards)
    best: list[tuple[str, ...]] = []
    best_key: Key | None = None
    for cards in plays(fewest, hand):
        k = _key(cards)
        if best_key is None or k < best_key:
            best, best_key = [cards], k
        elif k == best_key:
            best.append(cards)
    return best


def robot_choice(
    trees: Sequence[Tree], hand: Sequence[str], count_rule: str
) -> tuple[str, list[tuple[str, ...]]] | None:
    """The tree the Robot plays on and its best plays there, or None if it cannot play."""
    for kind in PRIORITY:
        for tree in (t for t in trees if t.kind == kind):
            options = best_plays(need(tree, count_rule), hand)
            if options:
                return tree.id, options
    return None


def colour_order(cards: Sequence[str]) -> tuple[int, ...]:
    """fixed_order tie-break: compare colours card by card, cards in value order."""
    numbered = sorted((c for c in cards if not is_copy(c)), key=lambda c: FACE[c][1])
    return tuple(COLOUR_RANK[FACE[c][0]] for c in numbered)

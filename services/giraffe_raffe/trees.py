"""The Tree tiles (GR-2), their shapes (GR-4) and restrictions (GR-5, GR-6).

A play is checked on its *resolved* cards: each Copy becomes a duplicate of the
numbered card it names. Which card a Copy names never changes whether a play is
legal (shapes only ask "all one value", "all one colour" or "distinct consecutive
values", and a duplicate keeps the first two true and always breaks the third), so
checks use the numbered cards and the count of Copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from services.giraffe_raffe.cards import COLOURS, FACE

VALUE_KINDS = {"single": 1, "pair": 2, "three": 3, "four": 4}
# Display order of the tiles (GR-2): Singles, Four, Three, Pair, Straight, Color, Free.
ORDER = ("four", "three", "pair", "straight", "color", "free")


@dataclass(frozen=True, slots=True)
class Play:
    seat: int
    cards: tuple[str, ...]
    copies: tuple[tuple[str, str], ...] = ()  # (copy id, numbered card it duplicates)

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def value(self) -> int:
        """The value of a Single/Pair/Three/Four play (all its cards share it)."""
        return play_value(self.cards)


def play_value(cards: tuple[str, ...]) -> int:
    return max((FACE[c][1] for c in cards if c in FACE), default=0)


@dataclass(frozen=True, slots=True)
class Tree:
    id: str
    kind: str
    colours: tuple[str, ...] = ()  # for singles: the colours the tile shows
    plays: tuple[Play, ...] = ()

    @property
    def top(self) -> Play | None:
        return self.plays[-1] if self.plays else None


@cache
def layout(players: int) -> tuple[Tree, ...]:
    """The tiles for a player count (solo uses the 2-player layout); one tuple a count,
    shared by every game's state (trees are frozen)."""
    if players >= 4:
        singles = [Tree(f"single-{c.lower()}", "single", (c,)) for c in COLOURS]
    elif players == 3:
        singles = [Tree("single-ry", "single", ("R", "Y")), Tree("single-bg", "single", ("B", "G"))]
    else:
        singles = [Tree("single", "single", COLOURS)]
    return (*singles, *(Tree(kind, kind) for kind in ORDER))


@dataclass(frozen=True, slots=True)
class Need:
    """What a play on a tree must be, given what lies there (GR-5)."""

    kind: str
    min_cards: int
    max_cards: int | None  # None: no upper bound
    above: int = 0  # value trees: strictly higher than this
    colours: tuple[str, ...] = ()


def need(tree: Tree, count_rule: str) -> Need:
    top = tree.plays[-1].cards if tree.plays else None
    if tree.kind in VALUE_KINDS:
        return _need(tree.kind, tree.colours, play_value(top) if top else 0, count_rule)
    return _need(tree.kind, (), len(top) if top else 0, count_rule)


@lru_cache(maxsize=4096)
def _need(kind: str, colours: tuple[str, ...], top: int, count_rule: str) -> Need:
    """``top`` is the top play's value on value trees, its size on count trees (0: empty).
    Cached: called for every tree on every turn, and there are few distinct answers."""
    if kind in VALUE_KINDS:
        k = VALUE_KINDS[kind]
        return Need(kind, k, k, top, colours)
    if top == 0:
        return Need(kind, 3, None)
    if count_rule == "exactly_one_more":
        return Need(kind, top + 1, top + 1)
    return Need(kind, top + 1, None)


def shape_error(n: Need, numbered: Sequence[str], copies: int) -> str | None:
    """Why these cards cannot be played on a tree that needs ``n``; None if they can."""
    size = len(numbered) + copies
    if not numbered:
        return "copy_needs_numbered"
    if size < n.min_cards or (n.max_cards is not None and size > n.max_cards):
        return "wrong_card_count"
    values = [FACE[c][1] for c in numbered]
    if n.kind in VALUE_KINDS:
        if len(set(values)) != 1:
            return "values_differ"
        if n.kind == "single" and FACE[numbered[0]][0] not in n.colours:
            return "wrong_colour"
        if values[0] <= n.above:
            return "value_not_higher"
        return None
    if n.kind == "straight":
        ordered = sorted(values)
        if copies or len(set(ordered)) != len(ordered):
            return "straight_needs_distinct_values"
        if ordered[-1] - ordered[0] != len(ordered) - 1:
            return "straight_not_consecutive"
    if n.kind == "color" and len({FACE[c][0] for c in numbered}) != 1:
        return "colours_differ"
    return None

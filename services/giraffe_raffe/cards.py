"""The 64 Giraffe cards (GR-1): 60 numbered cards, red/blue/yellow/green 1-15, and
4 Copy cards. A card is named by a short id: colour letter and value (``R7``, ``G15``)
or ``C1``-``C4`` for the Copies."""

from __future__ import annotations

from collections.abc import Iterable

COLOURS = ("R", "B", "Y", "G")  # red < blue < yellow < green (GR-11 fixed tie order)
COLOUR_NAMES = {"R": "red", "B": "blue", "Y": "yellow", "G": "green"}
VALUES = range(1, 16)
COPIES = ("C1", "C2", "C3", "C4")
NUMBERED = tuple(f"{c}{v}" for c in COLOURS for v in VALUES)
DECK = NUMBERED + COPIES
COLOUR_RANK = {c: i for i, c in enumerate(COLOURS)}

# card id -> (colour, value); Copies are absent.
FACE: dict[str, tuple[str, int]] = {f"{c}{v}": (c, v) for c in COLOURS for v in VALUES}
KNOWN = frozenset(DECK)


def is_copy(card: str) -> bool:
    return card in COPIES


def sort_key(card: str) -> tuple[int, int]:
    """Hand order: by value, then colour; Copies last."""
    if card in FACE:
        c, v = FACE[card]
        return (v, COLOUR_RANK[c])
    return (99, int(card[1:]))


def sorted_cards(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=sort_key))

"""The eight cargo shapes (RR-1), in the ship model's units: centimetres and kilograms.

``width`` x ``height`` is the shape lying at orientation 0; ``grip`` is the friction
coefficient against the ship or another piece (static; sliding uses 80% of it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    name: str
    width: float
    height: float
    mass: float
    grip: float


SHAPES: dict[str, Shape] = {
    s.name: s
    for s in (
        Shape("boat", 6.0, 2.0, 0.030, 0.55),
        Shape("barrel", 2.6, 3.2, 0.025, 0.35),  # round: rolls easily
        Shape("flacon", 1.6, 4.0, 0.015, 0.45),  # tall and light: topples
        Shape("box", 3.0, 3.0, 0.035, 0.60),
        Shape("sailor", 1.8, 4.4, 0.020, 0.50),
        Shape("plank", 7.0, 1.0, 0.020, 0.65),
        Shape("rat", 3.4, 1.6, 0.010, 0.70),
        Shape("chest", 4.0, 2.8, 0.045, 0.50),
    )
}
NAMES = tuple(SHAPES)


def piece_ids(seat: int, copies: int) -> list[str]:
    """A player's pieces: "s0-barrel-1" is seat 0's second barrel."""
    return [f"s{seat}-{name}-{n}" for name in NAMES for n in range(copies)]


def shape_of(piece_id: str) -> Shape:
    return SHAPES[piece_id.split("-")[1]]

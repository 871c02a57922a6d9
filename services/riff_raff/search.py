"""Riff Raff's search bot (#53, docs/bots.md): placements searched through the ship's
own simulation.

The ship is public (its pieces, where they lie, its tilt), so a load has nothing hidden
to sample: the bot tries every piece kind it holds, at nine positions across the area,
lying flat and standing, on a copy of the ship with the same deterministic simulator the
engine uses, and loads the placement that keeps the most aboard and leaves the ship
steadiest. It loads a second piece (where the rules allow one) only when the best second
placement, searched on the ship as the first leaves it, also keeps everything aboard.
Cards, catches and the captain's decisions are the careful bot's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.kernel.rng import SeededRng
from services.riff_raff import ship as physics
from services.riff_raff.bots import Command, _count, _ship_of, careful_bot
from services.riff_raff.pieces import SHAPES

POSITIONS = tuple(i / 10 for i in range(1, 10))
SECOND_KINDS = 3  # kinds tried for a second piece: the steadiest first ones
Score = tuple[int, int, float]


def _orientations(kind: str) -> tuple[float, ...]:
    """Lying on its longest side, and standing on its shortest (a square: one)."""
    shape = SHAPES[kind]
    flat = 0.0 if shape.width >= shape.height else 90.0
    return (flat,) if shape.width == shape.height else (flat, (flat + 90.0) % 180.0)


def _score(out: physics.Outcome, piece: str) -> Score:
    """Lower is better: pieces lost, whether its own piece was one, then how far the
    ship leans after and swung during the load."""
    fell = [f.id for f in out.fell]
    return (len(fell), piece in fell, abs(out.tilt) + 0.5 * out.peak_tilt)


def _ids_of(view: dict[str, Any], kind: str) -> list[str]:
    return [p for p in view["supply_ids"][view["seat"]] if p.split("-")[1] == kind]


def _placements(
    view: dict[str, Any],
    tilt: float,
    ship: tuple[physics.Placed, ...],
    area: int,
    kinds: Sequence[str],
    used: str = "",
) -> list[tuple[Score, dict[str, Any], physics.Outcome]]:
    """Every placement tried, best first: (score, the command's piece, the outcome)."""
    tried = []
    for kind in kinds:
        ids = [p for p in _ids_of(view, kind) if p != used]
        if not ids:
            continue
        for orientation in _orientations(kind):
            for position in POSITIONS:
                out = physics.simulate(
                    tilt, ship, physics.Load(ids[0], area, position, orientation)
                )
                piece = {"piece": kind, "position": position, "orientation": orientation}
                tried.append((_score(out, ids[0]), piece, out))
    tried.sort(key=lambda t: t[0])
    return tried


def search_bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> Command:
    c = legal["commands"][0] if legal["commands"] else {}
    if c.get("type") != "load" or "pieces" not in (view.get("ship") or {}):
        return careful_bot(view, legal, rng)
    tilt, ship = _ship_of(view)
    tried = _placements(view, tilt, ship, c["area"], c["pieces"])
    best_score, first, out = tried[0]
    pieces = [first]
    if c["max_pieces"] == 2 and best_score[0] == 0:
        used = _ids_of(view, first["piece"])[0]
        kinds = [k for k in c["pieces"] if k != first["piece"] or _count(view, k) >= 2]
        kinds = sorted(kinds, key=lambda k: min(s for s, p, _ in tried if p["piece"] == k))
        second = _placements(view, out.tilt, out.pieces, c["area"], kinds[:SECOND_KINDS], used)
        if second and second[0][0][0] == 0:
            pieces.append(second[0][1])
    return {"type": "load", "pieces": pieces}

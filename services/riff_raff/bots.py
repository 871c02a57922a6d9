"""Riff Raff bots (simulated mode), seeing only the view and legal commands.

* ``random``: a random card, piece, position and orientation; doubles when it may.
* ``careful``: tries a dozen placements (three pieces, four positions, lying flat) on a
  copy of the ship with the same simulator and loads the steadiest; doubles only when
  the first load is steady; catches the two pieces that fell from lowest; plays its
  low cards (the deck) before the high ones (the yardarms).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.kernel.rng import SeededRng
from services.riff_raff import ship as physics
from services.riff_raff.pieces import SHAPES

Command = dict[str, Any]
Bot = Callable[[dict[str, Any], dict[str, Any], SeededRng], Command]


def _decisions(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> Command | None:
    for c in legal["commands"]:
        if c["type"] == "choose_captain":
            return {"type": "choose_captain", "seat": rng.choice(c["seat"])}
        if c["type"] == "order_players":
            return {"type": "order_players", "order": rng.shuffled(c["order"])}
        tabletop = _tabletop(view, c)
        if tabletop is not None:
            return tabletop
    return None


def _tabletop(view: dict[str, Any], c: dict[str, Any]) -> Command | None:
    """The real ship's steps, which a bot takes only standing in for a player who left
    (bots play the simulated ship): the documented defaults (AL-3): nothing fell,
    accept, settle as reported."""
    if c["type"] in ("report", "accept"):
        return {"type": c["type"]}
    if c["type"] == "settle":
        report = ((view.get("turn") or {}).get("report")) or {}
        return {
            "type": "settle",
            "fell": list(report.get("fell", [])),
            "caught": list(report.get("caught", [])),
            "second_not_loaded": bool(report.get("second_not_loaded", False)),
        }
    return None


def random_bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> Command:
    decided = _decisions(view, legal, rng)
    if decided:
        return decided
    c = legal["commands"][0]
    if c["type"] == "choose_card":
        return {"type": "choose_card", "card": rng.choice(c["cards"])}
    if c["type"] == "catch":
        return {"type": "catch", "pieces": rng.shuffled(c["fallen"])[: rng.below(3)]}
    count = 1 + rng.below(c["max_pieces"])
    pieces = [
        {
            "piece": rng.choice(c["pieces"]),
            "position": rng.random(),
            "orientation": float(rng.choice([0, 90, rng.below(180)])),
        }
        for _ in range(count)
    ]
    if (
        count == 2
        and pieces[0]["piece"] == pieces[1]["piece"]
        and _count(view, pieces[0]["piece"]) < 2
    ):
        pieces = pieces[:1]
    return {"type": "load", "pieces": pieces}


def _count(view: dict[str, Any], piece: str) -> int:
    return int(view["supplies"][view["seat"]].count(piece))


def _ship_of(view: dict[str, Any]) -> tuple[float, tuple[physics.Placed, ...]]:
    import math

    pieces = tuple(
        physics.Placed(
            p["id"], p["area"] if p["area"] >= 5 else 1, p["x"], p["y"], p["width"], p["height"]
        )
        for p in view["ship"]["pieces"]
    )
    return math.radians(view["ship"]["tilt_degrees"]), pieces


def careful_bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> Command:
    decided = _decisions(view, legal, rng)
    if decided:
        return decided
    c = legal["commands"][0]
    if c["type"] == "choose_card":
        return {"type": "choose_card", "card": min(c["cards"])}
    if c["type"] == "catch":
        fallen = sorted(view["turn"]["fallen"], key=lambda f: f["height"])
        return {"type": "catch", "pieces": [f["id"] for f in fallen[:2]]}
    if "pieces" not in (view.get("ship") or {}):  # the real ship: nothing to simulate
        return random_bot(view, legal, rng)
    tilt, ship = _ship_of(view)
    me = view["seat"]
    best: tuple[tuple[int, float], dict[str, Any], physics.Outcome] | None = None
    kinds = sorted(c["pieces"], key=lambda k: -SHAPES[k].grip * SHAPES[k].width / SHAPES[k].height)[
        :3
    ]
    for kind in kinds:
        piece_id = next(p for p in view["supply_ids"][me] if p.split("-")[1] == kind)
        flat = 0.0 if SHAPES[kind].width >= SHAPES[kind].height else 90.0
        for position in (0.2, 0.4, 0.6, 0.8):
            out = physics.simulate(tilt, ship, physics.Load(piece_id, c["area"], position, flat))
            score = (len(out.fell), abs(out.tilt) + out.peak_tilt)
            if best is None or score < best[0]:
                best = (score, {"piece": kind, "position": position, "orientation": flat}, out)
    assert best is not None
    pieces = [best[1]]
    steady = best[0][0] == 0 and abs(best[2].tilt) < 0.3
    if c["max_pieces"] == 2 and steady and _count(view, best[1]["piece"]) >= 2:
        pieces.append(dict(best[1], position=1 - best[1]["position"]))
    return {"type": "load", "pieces": pieces}


BOTS: dict[str, Bot] = {"random": random_bot, "careful": careful_bot}

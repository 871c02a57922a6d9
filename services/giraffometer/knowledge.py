"""What a Giraffometer bot knows of a fact (#53, docs/bots.md), and the vote it casts.

A bot of a level knows each fact of the shipped deck as a person of that level would:
roughly. It holds one estimate per fact, the true answer with noise drawn from its seeded
generator:

* a year (the kind "year"): the answer plus normal noise of ``YEARS[level]`` years;
* anything else: the answer times lognormal noise of ``SIGMA[level]`` times the kind's
  difficulty (``DIFFICULTY``: a country's area is harder to know than a count of legs).

It then weighs what the six estimates make likely: it draws ``DRAWS`` possible truths
around its estimates (the same noise again), and casts the vote with the most crystals
expected over them (GM-4: +1 for each right guess, -1 for a vote on the opposite end when
penalties are on, never below 0). When one more crystal reaches the target, it casts the
vote most likely to gain one instead. Other seats' votes cannot change its crystals, so
it does not weigh them. On a custom deck, whose facts it cannot know, it votes at random.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import permutations
from random import Random
from typing import Any

from services.giraffometer.decks import Fact
from services.kernel.rng import SeededRng

SIGMA = {"easy": 1.0, "normal": 0.6, "expert": 0.35}  # lognormal noise of an estimate
YEARS = {"easy": 300.0, "normal": 120.0, "expert": 45.0}  # a year's noise, in years
DIFFICULTY = {
    "thousand km²": 1.3,  # areas of countries and seas
    "grams": 1.2,  # atomic masses, weights of small things
    "kilograms": 1.1,
    "metres": 0.9,
    "kilometres": 1.0,
}
COUNTS = 0.6  # a count (teeth, legs, keys, moons): what most people know best
DRAWS = 200
VOTES = list(permutations(range(6), 2))  # (lowest, highest) by index, never the same


def spread(level: str, fact: Fact) -> tuple[str, float]:
    """How a level's estimate of a fact is off: ("add", years) or ("times", sigma)."""
    if fact.kind == "year":
        return "add", YEARS[level]
    counted = fact.unit.lower() in ("legs", "teeth", "bones", "keys", "moons", "hearts")
    return "times", SIGMA[level] * (COUNTS if counted else DIFFICULTY.get(fact.kind, 1.0))


def noisy(value: float, how: tuple[str, float], rng: Random) -> float:
    kind, size = how
    if kind == "add":
        return value + rng.gauss(0.0, size)
    return (value + 1) * math.exp(rng.gauss(0.0, size)) - 1


def estimates(level: str, facts: Sequence[Fact], rng: Random) -> list[float]:
    """The level's estimate of each fact's answer."""
    return [noisy(f.answer, spread(level, f), rng) for f in facts]


def ends(level: str, facts: Sequence[Fact], guessed: Sequence[float], rng: Random) -> list[int]:
    """Truths the level finds possible, as (lowest index, highest index) pairs, DRAWS of
    them: each fact's estimate with its noise drawn again."""
    hows = [spread(level, f) for f in facts]
    out = []
    for _ in range(DRAWS):
        drawn = [noisy(g, how, rng) for g, how in zip(guessed, hows, strict=True)]
        out.append(drawn.index(min(drawn)) * 6 + drawn.index(max(drawn)))
    return out


def gain(vote: tuple[int, int], low: int, high: int, penalties: bool) -> int:
    """GM-4's change before the floor at 0."""
    lowest, highest = vote
    delta = (lowest == low) + (highest == high)
    if penalties:
        delta -= (lowest == high) + (highest == low)
    return delta


def best_vote(drawn: Sequence[int], penalties: bool, score: int, target: int) -> tuple[int, int]:
    """The vote with the most crystals expected over the drawn truths (the floor at 0
    counted); with one crystal to go, the vote most likely to gain one."""
    counts: dict[int, int] = {}
    for d in drawn:
        counts[d] = counts.get(d, 0) + 1

    def worth(vote: tuple[int, int]) -> float:
        total = 0.0
        for d, n in counts.items():
            delta = gain(vote, d // 6, d % 6, penalties)
            if target - score == 1:
                total += n * (delta >= 1)
            else:
                total += n * max(delta, -score)
        return total

    return max(VOTES, key=worth)


def knowing_bot(
    level: str, known: Mapping[str, Fact], view: dict[str, Any], rng: SeededRng
) -> dict[str, Any] | None:
    """The vote of a bot of ``level``, or None when a fact is not one it can know."""
    facts = [known.get(f["id"]) for f in view["facts"]]
    if any(f is None for f in facts) or len(facts) != 6:
        return None
    sure = [f for f in facts if f is not None]
    seat = int(view["seat"])
    scores = view.get("scores") or []
    score = int(scores[seat]) if 0 <= seat < len(scores) else 0
    options = view.get("options") or {}
    # A generator of its own, seeded from the game's: 1,200 normal draws a decision at
    # the seeded generator's SHA-256 a draw would take ~5 ms.
    own = Random(rng.below(1 << 62))
    drawn = ends(level, sure, estimates(level, sure, own), own)
    lowest, highest = best_vote(
        drawn, bool(options.get("penalties", True)), score, int(options.get("target", 7))
    )
    return {"type": "vote", "lowest": lowest + 1, "highest": highest + 1}

"""Giraffometer bots: see only the view and legal commands.

* ``random`` votes two different positions at random.
* ``easy`` / ``normal`` / ``expert`` estimate each answer as the true one times
  lognormal noise (sigma 1.0 / 0.5 / 0.15) and vote the smallest and largest estimate.
  They "know" facts of the shipped deck; on a custom deck they guess at random.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from services.giraffometer.decks import known_facts
from services.kernel.rng import SeededRng

Command = dict[str, Any]
Bot = Callable[[dict[str, Any], dict[str, Any], SeededRng], Command]
SIGMA = {"easy": 1.0, "normal": 0.5, "expert": 0.15}


def random_bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> Command:
    lowest = 1 + rng.below(6)
    highest = 1 + (lowest + rng.below(5)) % 6  # any position but lowest
    return {"type": "vote", "lowest": lowest, "highest": highest}


def _normal(rng: SeededRng) -> float:
    """A standard normal draw (Box-Muller) from the seeded generator."""
    u1, u2 = 1.0 - rng.random(), rng.random()
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2 * math.pi * u2)


def estimator(sigma: float) -> Bot:
    def bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> Command:
        known = known_facts()
        estimates = []
        for fact in view["facts"]:
            truth = known[fact["id"]].answer if fact["id"] in known else None
            if truth is None:
                return random_bot(view, legal, rng)
            estimates.append((truth + 1) * math.exp(sigma * _normal(rng)))
        lowest = 1 + estimates.index(min(estimates))
        highest = 1 + estimates.index(max(estimates))
        return {"type": "vote", "lowest": lowest, "highest": highest}

    return bot


BOTS: dict[str, Bot] = {"random": random_bot, **{k: estimator(s) for k, s in SIGMA.items()}}

"""Giraffometer bots: see only the view and legal commands, and know the shipped deck's
facts as roughly as a person of their level would (knowledge.py, docs/bots.md).

* ``random`` votes two different positions at random.
* ``easy`` / ``normal`` / ``expert`` estimate each answer with their level's noise and
  cast the vote with the most crystals expected (the target and penalties counted).
  On a custom deck, whose facts they cannot know, they vote at random.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.giraffometer.decks import known_facts
from services.giraffometer.knowledge import SIGMA, knowing_bot
from services.kernel.rng import SeededRng

Command = dict[str, Any]
Bot = Callable[[dict[str, Any], dict[str, Any], SeededRng], Command]


def random_bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> Command:
    lowest = 1 + rng.below(6)
    highest = 1 + (lowest + rng.below(5)) % 6  # any position but lowest
    return {"type": "vote", "lowest": lowest, "highest": highest}


def estimator(level: str) -> Bot:
    def bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> Command:
        return knowing_bot(level, known_facts(), view, rng) or random_bot(view, legal, rng)

    return bot


BOTS: dict[str, Bot] = {"random": random_bot, **{level: estimator(level) for level in SIGMA}}
NAMES = {
    "random": ("Beginner", "votes at random"),
    "easy": ("Novice", "knows the facts roughly (often off by a factor of 2 or 3)"),
    "normal": ("Intermediate", "knows the facts fairly well and weighs what it is unsure of"),
    "expert": ("Expert", "knows most facts well and plays the penalties and the target"),
}

"""Secret simultaneous choices (AL-1): a choice is published as sha256("salt:v1:v2...")
with a salt from the game's seeded generator, and opened with its salt at the reveal, so
anyone can check it was not changed."""

from __future__ import annotations

import hashlib

from services.kernel.rng import SeededRng


def new_salt(rng: SeededRng) -> str:
    return f"{rng.below(1 << 62):016x}"


def commitment(salt: str, *values: int) -> str:
    return hashlib.sha256(":".join([salt, *map(str, values)]).encode()).hexdigest()

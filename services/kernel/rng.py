"""A seeded random generator anyone can re-derive (AL-2).

Draws come from SHA-256 in counter mode over (seed, stream label, counter), so the
sequence is fixed by the seed alone, independent of Python's ``random`` module, and
can be recomputed in any language from the seed revealed when a game ends. Engines
derive one generator per game version, so a retried decision draws the same values.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")


def seed_hash(seed: str) -> str:
    """The public commitment to a game's secret seed."""
    return hashlib.sha256(seed.encode()).hexdigest()


class SeededRng:
    def __init__(self, seed: str, stream: str | int = 0) -> None:
        self._key = f"{seed}\x00{stream}\x00".encode()
        self._counter = 0

    def _next64(self) -> int:
        digest = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
        self._counter += 1
        return int.from_bytes(digest[:8], "big")

    def below(self, n: int) -> int:
        """Uniform integer in [0, n), by rejection so there is no modulo bias."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            value = self._next64()
            if value < limit:
                return value % n

    def random(self) -> float:
        """Uniform float in [0, 1) with 53 bits."""
        return (self._next64() >> 11) / float(1 << 53)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, from the last position down."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        out = list(items)
        self.shuffle(out)
        return out

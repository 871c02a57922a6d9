"""A live stream's place in the gateway's counts (per client address and in all), held
until it is released."""

from __future__ import annotations

from collections import Counter


class Admission:
    """Calling it releases the stream's place, once however often it is called. A small
    object rather than a closure: one is held a stream, for hours (a closure and its
    cells were ~0.2 KiB)."""

    __slots__ = ("address", "counts", "released")

    def __init__(self, counts: Counter[str], address: str) -> None:
        self.counts, self.address, self.released = counts, address, False
        counts[address] += 1

    def __call__(self) -> None:
        if self.released:
            return
        self.released = True
        self.counts[self.address] -= 1
        if self.counts[self.address] <= 0:
            del self.counts[self.address]

"""Per-token and per-address token buckets, in the memory of one gateway process.

Each replica limits on its own; behind N replicas a client gets up to N times the rate,
which is the usual trade for not paying a Redis round trip on every request."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Buckets:
    rate: float  # tokens per second
    burst: float
    max_keys: int = 100_000
    _state: dict[str, tuple[float, float]] = field(default_factory=dict)

    def take(self, key: str) -> float:
        """0 if the request may pass, else the seconds to wait."""
        now = time.monotonic()
        tokens, last = self._state.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens < 1:
            self._state[key] = (tokens, now)
            return (1 - tokens) / self.rate
        if len(self._state) >= self.max_keys and key not in self._state:
            self._state.clear()  # crude but bounded memory under an address flood
        self._state[key] = (tokens - 1, now)
        return 0.0

"""The view each seat got with its latest command, kept by the gateway that answered:
a client that reads its own view right after its move (GET ...?min_version=<the
command's version>) is answered from here, without a Redis read or an engine call,
while the read models catch up. Bounded by bytes; another gateway replica simply
misses and asks the read models or the engine."""

from __future__ import annotations

from services.core.lru import BytesLRU


class RecentViews:
    # A view here answers a read that follows its command within moments: a few MiB hold
    # the latest of thousands of seats (at 500 moves/s, the last ten seconds or so).
    def __init__(self, max_bytes: int = 8 * 1024 * 1024) -> None:
        self._views: BytesLRU[tuple[str, int], tuple[int, bytes]] = BytesLRU(max_bytes)

    def remember(self, game_id: str, seat: int, version: int, view: bytes) -> None:
        known = self._views.peek((game_id, seat))
        if known is None or known[0] <= version:
            self._views.put((game_id, seat), (version, view), len(view) + 100)

    def at_least(self, game_id: str, seat: int, version: int) -> tuple[int, bytes] | None:
        """The seat's latest answered view if it is at ``version`` or later."""
        known = self._views.get((game_id, seat))
        return known if known is not None and known[0] >= version else None

"""Seat streams by the token they were opened with (directly or through a ticket it
minted). A token revoked on any gateway (gateway.accounts.tokens publishes its hash; the
hub hears it) ends its streams here; after the hub's listener resubscribed, when a
revocation may have been missed, every open stream's token is checked again."""

from __future__ import annotations

from collections import defaultdict

from gateway.accounts.tokens import SeatTokens
from gateway.live.watched import Viewer


class TokenStreams:
    def __init__(self, tokens: SeatTokens | None) -> None:
        self.tokens = tokens
        self.by_token: dict[str, set[Viewer]] = defaultdict(set)

    def add(self, viewer: Viewer) -> None:
        if viewer.token_hash:
            self.by_token[viewer.token_hash].add(viewer)

    def remove(self, viewer: Viewer) -> None:
        streams = self.by_token.get(viewer.token_hash)
        if streams is not None:
            streams.discard(viewer)
            if not streams:
                del self.by_token[viewer.token_hash]

    def revoked(self, digest: str) -> None:
        """A token was revoked (on any gateway): forget it, end its streams."""
        if self.tokens is not None:
            self.tokens.forget(digest)
        for viewer in list(self.by_token.get(digest, ())):
            viewer.end()

    async def check(self) -> None:
        """End the streams whose token went while nobody here listened."""
        digests = list(self.by_token)
        if not digests or self.tokens is None:
            return
        for digest, alive in zip(digests, await self.tokens.live(digests), strict=True):
            if not alive:
                self.revoked(digest)

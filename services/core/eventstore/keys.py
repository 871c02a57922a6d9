"""Key layout of the event store (DESIGN §3).

Every key of a game and its partition's log share the hash tag ``{p:NN}``, so the
append script touches one Redis Cluster slot.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from services.core.errors import InvalidArgument

GAME_ID_CHARS = r"[A-Za-z0-9_-]{1,64}"  # also the gateway's path pattern
GAME_ID = re.compile(f"^{GAME_ID_CHARS}$")


def check_game_id(game_id: str) -> None:
    if not isinstance(game_id, str) or not GAME_ID.match(game_id):
        raise InvalidArgument(
            "a game id is 1-64 characters of A-Z, a-z, 0-9, '_' or '-'", "bad_game_id"
        )


@dataclass(frozen=True)
class Keys:
    prefix: str
    partitions: int

    def partition_of(self, game_id: str) -> int:
        return zlib.crc32(game_id.encode()) % self.partitions

    def tag(self, partition: int) -> str:
        return f"{self.prefix}:{{p:{partition:02d}}}"

    def game(self, game_id: str) -> str:
        return f"{self.tag(self.partition_of(game_id))}:game:{game_id}"

    def meta(self, game_id: str) -> str:
        return self.game(game_id) + ":meta"

    def commands(self, game_id: str) -> str:
        return self.game(game_id) + ":cmd"

    def archive(self, game_id: str) -> str:
        """A finished game's events, compacted into one value after its retention."""
        return self.game(game_id) + ":archive"

    def seats(self, game_id: str) -> str:
        """Who holds the game's seats (services.core.seating)."""
        return self.game(game_id) + ":seats"

    def bound_tokens(self, game_id: str) -> str:
        """The digests of every token bound to one of the game's seats: they go when the
        game's archive does (services.projection.archive)."""
        return self.game(game_id) + ":tokens"

    def token(self, digest: str) -> str:
        """A token's binding (gateway.accounts.tokens), by the token's SHA-256."""
        return f"{self.prefix}:token:{digest}"

    def sync(self, game_id: str) -> str:
        """A scratch key in the game's slot: a write to it moves a connection's
        replication offset, so WAIT confirms what was there before (replication.py)."""
        return f"{self.tag(self.partition_of(game_id))}:sync"

    def log(self, partition: int) -> str:
        return f"{self.tag(partition)}:log"

    def log_seq(self, partition: int) -> str:
        return f"{self.tag(partition)}:log:seq"

    def attended(self, partition: int) -> str:
        """The partition's attended log: the log entries (same ids) of the games a runner
        must follow (bots, clocks, tournaments), so runners skip the rest unread."""
        return f"{self.tag(partition)}:log:attended"

    def append_keys(self, game_id: str) -> list[str]:
        """The append script's keys (the same as game(), meta(), ... give), built from one
        partition and one game key: this runs on every append."""
        tag = self.tag(self.partition_of(game_id))
        game = f"{tag}:game:{game_id}"
        log = f"{tag}:log"
        return [game, game + ":meta", game + ":cmd", log, log + ":seq", log + ":attended"]

"""Where the read models live (shared by the projection, which writes them, and the
gateway, which reads them). Every key of a partition's read models carries the
partition's hash tag, so one script stores a batch with its checkpoint."""

from __future__ import annotations

from dataclasses import dataclass

from services.core.eventstore import Keys


@dataclass(frozen=True)
class ReadModelKeys:
    keys: Keys

    @property
    def generation(self) -> str:
        """The generation readers use; a rebuild writes a new one, then switches this."""
        return f"{self.keys.prefix}:proj:gen"

    def base(self, gen: int, partition: int) -> str:
        return f"{self.keys.tag(partition)}:rm:{gen}"

    def checkpoint(self, gen: int, partition: int) -> str:
        return self.base(gen, partition) + ":cp"

    def lobby(self, gen: int, partition: int, kind: str = "") -> str:
        """Recently updated games; ``kind`` names another lobby (tournaments)."""
        return self.base(gen, partition) + ":lobby" + (f":{kind}" if kind else "")

    def game(self, gen: int, game_id: str) -> str:
        return self.base(gen, self.keys.partition_of(game_id)) + f":game:{game_id}"

    def ended(self, partition: int) -> str:
        """Finished games of a partition by end time (any generation): the archiver's
        queue (services.projection.archive)."""
        return f"{self.keys.tag(partition)}:ended"

    def marks(self, partition: int) -> str:
        """Projection checkpoints by time, to trim the log past the retention period."""
        return f"{self.keys.tag(partition)}:proj:marks"

    def fence(self, partition: int) -> str:
        return f"{self.keys.tag(partition)}:proj:fence"

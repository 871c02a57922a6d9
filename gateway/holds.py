"""Duplicate tournaments with people (docs/tournaments.md): every table of a round plays the
same deal, so a table's game is held back from everyone outside it (spectators, players
of other tables) until every table of the round has finished it: its view, events, live
stream, replay, record and lobby entry. The tournament's own view holds the round's
results back the same way (services/tournament/view.py); a table's game is held while
its round shows a table without a result there.

Only ids of tournament tables are looked at (services/tournament/ids.table_of); a round
once released stays released, so each is asked about until then only."""

from __future__ import annotations

import time

from services.core.errors import RaffeError
from services.core.transport import EngineClient
from services.kernel.game import SPECTATOR
from services.tournament.ids import table_of

ASK_EVERY_S = 0.5  # a held round's answer is kept this long
MAX_KNOWN = 100_000  # released rounds remembered


class Holds:
    def __init__(self, engines: dict[str, EngineClient]) -> None:
        self.engines = engines
        self._released: set[tuple[str, int]] = set()
        self._held: dict[tuple[str, int], float] = {}  # (tournament, round) -> asked at

    async def held(self, game_id: str) -> bool:
        """Whether the game is a duplicate table whose deal another table still plays."""
        where = table_of(game_id)
        if where is None or "tournament" not in self.engines:
            return False
        round_of = (where[0], where[1])
        if round_of in self._released:
            return False
        asked = self._held.get(round_of)
        if asked is not None and time.monotonic() - asked < ASK_EVERY_S:
            return True
        holding = await self._ask(*round_of)
        if holding:
            self._held[round_of] = time.monotonic()
        else:
            self._held.pop(round_of, None)
            if len(self._released) >= MAX_KNOWN:  # forgotten rounds are asked once more
                self._released.clear()
            self._released.add(round_of)
        return holding

    async def _ask(self, tournament_id: str, number: int) -> bool:
        try:
            _, view, _ = await self.engines["tournament"].view(tournament_id, SPECTATOR)
        except RaffeError:
            return False  # no such tournament: an id that only looks like a table's
        if view["options"].get("format") != "duplicate" or view["status"]["over"]:
            return False
        if not any(p["kind"] == "human" for p in view["players"]):
            return False  # bots only: nobody could use what a finished table shows
        rounds = [r for r in view["rounds"] if r["round"] == number]
        return bool(rounds) and any(t["keys"] is None for t in rounds[0]["tables"])

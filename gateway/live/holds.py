"""Duplicate tournaments with people (docs/tournaments.md): every table of a round plays the
same deal, so a table's game is held back from everyone outside it (spectators, players
of other tables) until every table of the round has finished it: its view, events, live
stream, replay, record and lobby entry. The tournament's own view holds the round's
results back the same way (services/tournament/view.py), and the tournament package
answers whether a round may be shown (``round_shown``).

Holds fail closed: a round not dealt yet is held (asking for a table before its round
exists must not release it), and an engine that cannot answer holds too (the error goes
to the client, nothing is remembered). Only ids of tournament tables are looked at
(services/tournament/ids.table_of); a round once shown stays shown, so each is asked
about until then only."""

from __future__ import annotations

import time

from services.core.errors import UnknownGame
from services.core.transport import EngineClient
from services.kernel.game import SPECTATOR
from services.tournament.ids import table_of
from services.tournament.view import round_shown

ASK_EVERY_S = 0.5  # a held round's answer is kept this long
MAX_KNOWN = 100_000  # released rounds remembered


class Holds:
    def __init__(self, engines: dict[str, EngineClient]) -> None:
        self.engines = engines
        self._released: set[tuple[str, int]] = set()
        self._held: dict[tuple[str, int], float] = {}  # (tournament, round) -> asked at

    async def held(self, game_id: str) -> bool:
        """Whether the game is a duplicate table whose deal another table still plays
        (or will play: a round not dealt yet)."""
        where = table_of(game_id)
        if where is None or "tournament" not in self.engines:
            return False
        round_of = (where[0], where[1])
        if round_of in self._released:
            return False
        asked = self._held.get(round_of)
        if asked is not None and time.monotonic() - asked < ASK_EVERY_S:
            return True
        shown = await self._shown(*round_of)
        if shown is None:  # no such tournament: an id that only looks like a table's
            return False
        if not shown:
            self._held[round_of] = time.monotonic()
            return True
        self._held.pop(round_of, None)
        if len(self._released) >= MAX_KNOWN:  # forgotten rounds are asked once more
            self._released.clear()
        self._released.add(round_of)
        return False

    async def _shown(self, tournament_id: str, number: int) -> bool | None:
        """Whether the round may be shown; None if there is no such tournament (not
        remembered: one may not exist yet). Any other error reaches the caller."""
        try:
            _, view, _ = await self.engines["tournament"].view(tournament_id, SPECTATOR)
        except UnknownGame:
            return None
        return round_shown(view, number)

"""The tournament runner: follows the partition logs it owns and plays tournaments out.

- A tournament's RoundStarted: create each table's game through its engine. The game id
  and the create's command id are fixed by the table, so a second runner (or this one
  after a crash) creating it again gets the same game back.
- A table game's GameEnded: read the game's final public view, reduce it to one key per
  seat (services.tournament.scoring) and report it to the tournament as its ``result``
  command, with the command id ``result:<game id>``; the tournament engine records it
  once, and its decide pairs the next round when the last table of a round is in.

Several runners share the partitions by leases (services.core.worker). A runner killed
mid-batch has not checkpointed it; whoever owns the partition next does it again, and
every step above is idempotent.
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

from prometheus_client import Counter

from services.accounts.streams import take_seat
from services.core.codec import loads
from services.core.eventstore import EventStore, StoredEvent
from services.core.seating import seat_calls
from services.core.transport import EngineClient
from services.core.worker import TOURNAMENT_GROUP, CheckpointedWorker, gather_all
from services.kernel.errors import RuleViolation
from services.kernel.game import ENGINE, SPECTATOR, SeatSpec
from services.kernel.table import DEFAULT_DELAY_MOVES
from services.tournament.ids import table_game_id, table_of, table_seed
from services.tournament.scoring import result_keys

log = logging.getLogger(__name__)
STEPS = Counter("raffe_tournament_steps_total", "Tournament runner steps", ["step"])


class TournamentRunner(CheckpointedWorker):
    def __init__(
        self, store: EventStore, engines: dict[str, EngineClient], ttl_ms: int = 5000
    ) -> None:
        super().__init__(store, TOURNAMENT_GROUP, ttl_ms)
        self.engines = engines
        self._secrets: dict[str, tuple[str, dict[str, Any]]] = {}  # seed, game options

    async def work(self, partition: int, events: list[StoredEvent]) -> bool:
        busy = False
        for e in events:
            if e.game_type == "tournament" and e.type == "RoundStarted":
                await self.open_tables(e.game_id, loads(e.payload))
                busy = True
            elif e.type == "GameEnded" and e.game_type != "tournament":
                busy = await self.report(e.game_type, e.game_id) or busy
        return busy

    async def open_tables(self, tournament_id: str, started: dict[str, Any]) -> None:
        """Create every table's game of a round (again, harmlessly, if it exists)."""
        tournaments = self.engines["tournament"]
        _, view, _ = await tournaments.view(tournament_id, SPECTATOR)
        players, options = view["players"], view["options"]
        duplicate = options["format"] in ("duplicate", "ladder")  # one deal a round
        seed, game_options = await self._secret(tournament_id)
        game, number = started["game"], started["round"]

        async def create(table: dict[str, Any]) -> None:
            game_id = table_game_id(tournament_id, number, table["table"])
            seats = [_seat(players[p]) for p in table["players"]]
            people = any(s.kind == "human" for s in seats)
            await self.engines[game].create(
                seats,
                table_options(game_options.get(game, {}), people),
                game_id=game_id,
                seed=table_seed(seed, number, table["table"], duplicate),
                command_id=f"create:{game_id}",
                attended=True,  # this runner reports its result when it ends
            )
            await self._seat_accounts(game_id, seats)
            STEPS.labels("game_created").inc()

        await gather_all(create(table) for table in started["tables"])

    async def _seat_accounts(self, game_id: str, seats: list[SeatSpec]) -> None:
        """An account's seats at a table (docs/bot-api.md): bound to it, so its token
        plays them, and in its stream (SeatTaken), so its account stream says so."""
        players = {i: s.player for i, s in enumerate(seats) if s.player}
        if not players:
            return
        pipe = self.store.redis.pipeline(transaction=False)
        now_ms = int(time.time() * 1000)
        seat_calls(pipe, self.store, game_id, [s.kind for s in seats], players, now_ms)
        await pipe.execute()
        for seat, player in players.items():
            with contextlib.suppress(RuleViolation):  # erased meanwhile: the seat stays
                await take_seat(self.store, player, game_id, seat)

    async def report(self, game_type: str, game_id: str) -> bool:
        """Send a finished table game's result to its tournament (once, by command id);
        False for games that belong to no tournament."""
        where = table_of(game_id)
        engine = self.engines.get(game_type)
        if where is None or engine is None:
            return False
        tournament_id, number, table = where
        _, final, _ = await engine.view(game_id, SPECTATOR)
        command = {
            "type": "result",
            "round": number,
            "table": table,
            "keys": result_keys(game_type, final),
        }
        try:
            await self.engines["tournament"].execute(
                tournament_id, ENGINE, command, f"result:{game_id}", 0
            )
            STEPS.labels("result").inc()
        except RuleViolation as error:  # recorded already under another command id
            log.info("result refused", extra={"game_id": game_id, "code": error.code})
        return True

    async def _secret(self, tournament_id: str) -> tuple[str, dict[str, Any]]:
        """The tournament's seed and full game options, read from its stream (views show
        neither: the seed gives the deals, the options a custom deck's answers)."""
        if tournament_id not in self._secrets:
            first = [
                loads(e.payload) for e in await self.store.read_game_range(tournament_id, 0, 2)
            ]
            created = first[0] if first else {}
            options = created.get("options", {}).get("game_options", {})
            if len(first) > 1 and "game_options" in first[1]:
                options = first[1]["game_options"]
            if len(self._secrets) >= 10_000:
                self._secrets.clear()
            self._secrets[tournament_id] = (created.get("seed", ""), options)
        return self._secrets[tournament_id]


def table_options(options: dict[str, Any], people: bool = False) -> dict[str, Any]:
    """A table's game options: a custom deck is shared by every table of the tournament,
    so no finished table may show its answers (GM-6); a table with people in it shows
    spectators its game two moves late unless the organiser chose a delay
    (docs/fair-table.md)."""
    out = dict(options)
    if isinstance(options.get("deck"), dict):
        out["seal_deck"] = True
    delays = ("spectator_delay_moves", "spectator_delay_s")
    if people and not any(k in options for k in delays):
        out["spectator_delay_moves"] = DEFAULT_DELAY_MOVES
    return out


def _seat(player: dict[str, Any]) -> SeatSpec:
    if player["kind"] == "bot":
        return SeatSpec("bot", player["name"], player.get("bot_level", ""))
    return SeatSpec("human", player["name"], player=player.get("account") or "")

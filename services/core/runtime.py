"""The engine runtime: a game module (pure) joined to the event store (I/O).

Stateless across replicas: any replica serves any game. It caches each game's state by
version and reads only newer events; on a conflict with a version it chose itself it
reloads and decides again, a bounded number of times (DESIGN §3).
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from services.core.codec import to_domain, to_new
from services.core.errors import InvalidArgument, UnknownGame, VersionConflict
from services.core.eventstore import AppendResult, EventStore, StoredEvent, check_game_id
from services.core.game import SPECTATOR, Event, Game, SeatSpec
from services.core.playthrough import opening
from services.core.rng import SeededRng

S = TypeVar("S")
RETRIES = 3
ANY_VERSION = 0  # an Execute that pins no version: the engine retries on conflicts


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class Loaded(Generic[S]):
    state: S
    version: int
    seed: str


@dataclass(frozen=True)
class Outcome:
    """What a command did, with the events as the caller may see them."""

    game_id: str
    result: AppendResult
    events: list[StoredEvent]
    view: dict[str, Any] | None = None  # the caller's view at result.version


class GameRuntime(Generic[S]):
    def __init__(self, game: Game[S], store: EventStore, cache_size: int = 4096) -> None:
        self.game = game
        self.store = store
        self.cache_size = cache_size
        self._cache: OrderedDict[str, Loaded[S]] = OrderedDict()

    # -- writes -------------------------------------------------------------------

    async def create(
        self,
        seats: Sequence[SeatSpec],
        options: Mapping[str, Any],
        *,
        game_id: str = "",
        seed: str = "",
        command_id: str = "",
        time_ms: int | None = None,
    ) -> Outcome:
        game_id = game_id or uuid.uuid4().hex
        check_game_id(game_id)
        seed = seed or secrets.token_hex(16)
        if len(seed) > 128:
            raise InvalidArgument("a seed is at most 128 characters", "bad_seed")
        time_ms = now_ms() if time_ms is None else time_ms
        events = opening(self.game, options, seats, seed, time_ms)
        result = await self._append(game_id, 0, command_id or uuid.uuid4().hex, events, time_ms)
        return await self._outcome(game_id, result, SPECTATOR)

    async def execute(
        self,
        game_id: str,
        seat: int,
        command: Mapping[str, Any],
        *,
        command_id: str,
        expected_version: int = ANY_VERSION,
        time_ms: int | None = None,
        dry_run: bool = False,
    ) -> Outcome:
        if dry_run:
            return await self.validate(game_id, seat, command, expected_version, time_ms)
        if not isinstance(command, Mapping):
            raise InvalidArgument("a command is a JSON object", "bad_command")
        if not isinstance(command_id, str) or not 0 < len(command_id) <= 128:
            raise InvalidArgument("a command id is 1-128 characters", "bad_command_id")
        known = await self.store.command_result(game_id, command_id)
        if known is not None:
            return await self._outcome(
                game_id, known, seat, await self._state_at(game_id, known.version)
            )
        time_ms = now_ms() if time_ms is None else time_ms
        for attempt in range(RETRIES):
            loaded = await self.load(game_id)
            if expected_version not in (ANY_VERSION, loaded.version):
                raise VersionConflict(expected_version, loaded.version)
            rng = SeededRng(loaded.seed, loaded.version)
            events = self.game.decide(loaded.state, seat, command, rng, time_ms)
            try:
                result = await self._append(game_id, loaded.version, command_id, events, time_ms)
            except VersionConflict:
                if expected_version != ANY_VERSION or attempt == RETRIES - 1:
                    raise
                continue
            if result.duplicate:  # the same command id won a race: answer its result
                return await self._outcome(
                    game_id, result, seat, await self._state_at(game_id, result.version)
                )
            return await self._outcome(
                game_id, result, seat, self._fold_new(game_id, loaded, events, result)
            )
        raise AssertionError("unreachable")

    async def validate(
        self,
        game_id: str,
        seat: int,
        command: Mapping[str, Any],
        expected_version: int,
        time_ms: int | None = None,
    ) -> Outcome:
        """The validator: what the command would do, appending nothing. Raises the same
        typed errors as execute."""
        if not isinstance(command, Mapping):
            raise InvalidArgument("a command is a JSON object", "bad_command")
        loaded = await self.load(game_id)
        if expected_version not in (ANY_VERSION, loaded.version):
            raise VersionConflict(expected_version, loaded.version)
        rng = SeededRng(loaded.seed, loaded.version)
        now = now_ms() if time_ms is None else time_ms
        events = self.game.decide(loaded.state, seat, command, rng, now)
        stored = [
            StoredEvent(
                game_id,
                self.game.name,
                loaded.version + i,
                e.id,
                e.type,
                e.schema_version,
                e.payload,
                e.actor,
                "",
                0,
                self.game.engine_version,
            )
            for i, e in enumerate((to_new(ev) for ev in events), start=1)
        ]
        result = AppendResult(loaded.version + len(events), self.store.partition_of(game_id), 0, 0)
        state = loaded.state
        for event in events:
            state = self.game.evolve(state, event)
        return Outcome(
            game_id, result, await self.redacted(game_id, stored, seat), self.game.view(state, seat)
        )

    async def _append(
        self, game_id: str, expected: int, command_id: str, events: list[Event], time_ms: int | None
    ) -> AppendResult:
        return await self.store.append(
            game_id,
            self.game.name,
            expected,
            command_id,
            [to_new(e) for e in events],
            time_ms=now_ms() if time_ms is None else time_ms,
            engine_version=self.game.engine_version,
        )

    def _fold_new(self, game_id: str, loaded: Loaded[S], events: list[Event], r: AppendResult) -> S:
        state = loaded.state
        for e in events:
            state = self.game.evolve(state, e)
        self._remember(game_id, replace(loaded, state=state, version=r.version))
        return state

    async def _state_at(self, game_id: str, version: int) -> S:
        state = self.game.initial()
        for stored in await self.store.read_game_range(game_id, 0, version):
            state = self.game.evolve(state, to_domain(stored))
        return state

    async def _outcome(
        self, game_id: str, result: AppendResult, seat: int, state: S | None = None
    ) -> Outcome:
        stored = await self.store.read_game_range(game_id, result.first_version - 1, result.version)
        view = None if state is None else self.game.view(state, seat)
        return Outcome(game_id, result, await self.redacted(game_id, stored, seat), view)

    # -- reads --------------------------------------------------------------------

    async def load(self, game_id: str) -> Loaded[S]:
        cached = self._cache.get(game_id)
        after = cached.version if cached else 0
        newer = await self.store.read_game(game_id, after)
        if cached is None and not newer:
            raise UnknownGame(f"no game {game_id}")
        if cached is not None and not newer:
            self._cache.move_to_end(game_id)
            return cached
        if newer and newer[0].game_type != self.game.name:
            raise UnknownGame(f"game {game_id} is a {newer[0].game_type} game")
        state = cached.state if cached else self.game.initial()
        seed = cached.seed if cached else str(to_domain(newer[0]).data.get("seed", ""))
        for stored in newer:
            state = self.game.evolve(state, to_domain(stored))
        loaded = Loaded(state, newer[-1].version if newer else after, seed)
        self._remember(game_id, loaded)
        return loaded

    def _remember(self, game_id: str, loaded: Loaded[S]) -> None:
        current = self._cache.get(game_id)
        if current is None or current.version <= loaded.version:
            self._cache[game_id] = loaded
            self._cache.move_to_end(game_id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    async def view(self, game_id: str, seat: int) -> tuple[int, dict[str, Any], dict[str, Any]]:
        loaded = await self.load(game_id)
        g = self.game
        return loaded.version, g.view(loaded.state, seat), g.status(loaded.state).to_json()

    async def legal_commands(self, game_id: str, seat: int) -> tuple[int, dict[str, Any]]:
        loaded = await self.load(game_id)
        return loaded.version, self.game.legal_commands(loaded.state, seat)

    async def events(
        self, game_id: str, seat: int, after: int, limit: int
    ) -> tuple[int, list[StoredEvent]]:
        loaded = await self.load(game_id)
        stored = await self.store.read_game(game_id, after, limit)
        return loaded.version, await self.redacted(game_id, stored, seat)

    async def redacted(
        self, game_id: str, stored: list[StoredEvent], seat: int
    ) -> list[StoredEvent]:
        """Events as ``seat`` may see them; all of them, seed included, once the game is over."""
        loaded = await self.load(game_id)
        if self.game.status(loaded.state).over:
            return stored
        out = []
        for s in stored:
            event = self.game.redact(loaded.state, to_domain(s), seat)
            out.append(replace(s, payload=to_new(event).payload))
        return out

    async def replay(
        self, game_id: str, seat: int, version: int, reveal: bool = False
    ) -> tuple[int, dict[str, Any]]:
        """The view of ``seat`` as it was at ``version``; with ``reveal``, every card
        (only once the game is over: its whole log is public then)."""
        loaded = await self.load(game_id)
        if not 1 <= version <= loaded.version:
            raise InvalidArgument(f"version must be 1..{loaded.version}", "bad_version")
        state = self.game.initial()
        for stored in await self.store.read_game_range(game_id, 0, version):
            state = self.game.evolve(state, to_domain(stored))
        if reveal and not self.game.status(loaded.state).over:
            raise InvalidArgument("reveal is for games that are over", "game_not_over")
        return version, self.game.view(state, seat, reveal)

"""The engine runtime: a game module (pure) joined to the event store (I/O).

Stateless across replicas: any replica serves any game. It caches each game's state by
version and reads only newer events; on a conflict with a version it chose itself it
reloads and decides again, a bounded number of times (DESIGN §3).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import reduce
from typing import Any, Generic, TypeVar

from prometheus_client import Counter

from services.core.attention import attended as is_attended
from services.core.codec import canonical, dumps, to_domain, to_new
from services.core.errors import (
    Contended,
    InvalidArgument,
    RaffeError,
    UnknownGame,
    VersionConflict,
)
from services.core.eventstore import (
    AppendResult,
    EventStore,
    NewEvent,
    StoredEvent,
    check_game_id,
)
from services.core.gamestate import GameAt, GameStates, in_memory, state_at
from services.core.redaction import redact_stored
from services.core.writers import Turns
from services.kernel.game import SPECTATOR, Decision, Game, SeatSpec
from services.kernel.playthrough import opening
from services.kernel.rng import SeededRng
from services.kernel.table import STAND_IN_EVENTS, StandIn

S = TypeVar("S")
RETRIES = 3
# Commands the engine places (ANY_VERSION) are queued per game in a process, so only
# writers in other replicas make them load again; they try this often, with a short
# random pause between tries so that two replicas' retries do not keep meeting.
PLACED_RETRIES = 8
RETRY_PAUSE_S = 0.005
GAME_ENDED = "GameEnded"  # every game's last event: the projection and runners read it too
ANY_VERSION = 0  # an Execute that pins no version: the engine retries on conflicts

log = logging.getLogger(__name__)


def now_ms() -> int:
    return int(time.time() * 1000)


def digest_of(*parts: Any) -> str:
    """What a command said, to tell a retry (same digest) from a reused id (another)."""
    return hashlib.sha256(canonical(parts)).hexdigest()[:32]


def command_key(seat: int, command_id: str) -> str:
    """Command ids are the sender's: seat 1 reusing seat 0's id is another command."""
    return f"{seat}:{command_id}"


def check_command_id(command_id: str) -> None:
    if not isinstance(command_id, str) or not 0 < len(command_id) <= 128:
        raise InvalidArgument("a command id is 1-128 characters", "bad_command_id")


def check_same(known: AppendResult, digest: str) -> None:
    if known.digest and known.digest != digest:
        raise InvalidArgument(
            "this command_id was used for another command; use a new id for a new command",
            "command_id_reused",
        )


@dataclass(frozen=True)
class Outcome:
    """What a command did, with the events as the caller may see them."""

    game_id: str
    result: AppendResult
    events: list[StoredEvent]
    # The game's state at result.version (a duplicate's: the one its original made), when
    # at hand: the answer's view and legal commands are drawn from it, for the caller or
    # the next seat (engine_service).
    state: Any = None


@dataclass(frozen=True, slots=True)
class _Attempt:
    """A command as execute checked it, for its tries."""

    game_id: str
    seat: int
    typed: Any
    command_id: str
    expected_version: int
    time_ms: int
    key: str
    digest: str
    said: bytes


# How a call found its game in this replica's cache: "trusted" (a command's state, not
# read: the append checks the version), "current" (read, nothing newer), "behind" (newer
# events read and folded: another replica moved it), "cold" (read from the start).
CACHE = Counter(
    "raffe_engine_cache_total", "Games as the engine's cache held them", ["game", "found"]
)


class GameRuntime(Generic[S]):
    def __init__(
        self, game: Game[S], store: EventStore, cache_bytes: int = 256 * 1024 * 1024
    ) -> None:
        self.game = game
        self.store = store
        self._cache: GameStates[S] = GameStates(cache_bytes)
        self._turns = Turns()
        store.on_failover(self._cache.clear)  # it may hold appends the failover lost
        # Bound once: looking the labels up costs about a microsecond on every command.
        self._found = {
            k: CACHE.labels(game.name, k) for k in ("trusted", "current", "behind", "cold")
        }

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
        attended: bool = False,
        practice: bool = False,
        rematch_of: str = "",
    ) -> Outcome:
        """A new game. ``attended``: the creator asks the runners to follow it although
        no seat is a bot and no clock runs (a tournament's table)."""
        game_id = game_id or uuid.uuid4().hex
        check_game_id(game_id)
        seed = seed or secrets.token_hex(16)
        if len(seed) > 128:
            raise InvalidArgument("a seed is at most 128 characters", "bad_seed")
        time_ms = now_ms() if time_ms is None else time_ms
        events = opening(self.game, options, seats, seed, time_ms, practice, rematch_of)
        new = [to_new(e) for e in events]
        followed = is_attended(events[0].data, always=self.game.always_attended, asked=attended)
        command_id = command_id or uuid.uuid4().hex
        records = [s.record() for s in seats]
        digest = digest_of(self.game.name, records, options)
        said = {"options": dict(options), "seats": records, "practice": practice}
        if rematch_of:
            said["rematch_of"] = rematch_of
        result = await self._append(
            game_id,
            0,
            command_id,
            new,
            time_ms,
            f"create:{command_id}",
            digest,
            followed,
            dumps({"create": said}),
        )
        check_same(result, digest)
        if result.duplicate:  # created before under this command id: as it was then
            return await self._outcome(game_id, result, SPECTATOR)
        # Folded here from the events just appended, not read back: the game is cached
        # for its first command, and a tournament round's tables are created without
        # two reads each (a creation read its range and then the whole game).
        # The typed events are folded, not their stored form parsed back.
        state = reduce(self.game.evolve, events, self.game.initial())
        self._keep(
            game_id,
            GameAt(state, result.version, seed, in_memory(new)),
            ended=new[-1].type == GAME_ENDED,
        )
        stored = self._as_stored(game_id, new, result, command_id, time_ms)
        return Outcome(
            game_id, result, redact_stored(self.game, state, stored, SPECTATOR, events), state
        )

    async def execute(
        self,
        game_id: str,
        seat: int,
        command: Mapping[str, Any],
        *,
        command_id: str,
        expected_version: int = ANY_VERSION,
        time_ms: int | None = None,
        stand_in: bool = False,
    ) -> Outcome:
        """load -> decide -> append. ``stand_in``: a bot's move for a seat whose player
        left or is gone (services.kernel.table). A refusal or a conflict on a version the engine
        chose itself may come from a cache that is behind: load afresh and try again."""
        check_command_id(command_id)
        typed = self._command(command)
        if stand_in:
            typed = StandIn(typed)
        time_ms = now_ms() if time_ms is None else time_ms
        key, digest = command_key(seat, command_id), digest_of(command)
        said = dumps({"seat": seat, "command": command, **({"stand_in": True} if stand_in else {})})
        attempt = _Attempt(
            game_id, seat, typed, command_id, expected_version, time_ms, key, digest, said
        )
        if expected_version != ANY_VERSION:
            return await self._attempts(attempt, RETRIES)
        async with self._turns.turn(game_id):
            return await self._attempts(attempt, PLACED_RETRIES)

    async def _attempts(self, a: _Attempt, retries: int) -> Outcome:
        """load -> decide -> append, again on a refusal or conflict that a cache behind
        the store may explain; Contended when other writers keep getting there first."""
        fresh = False
        for attempt in range(retries + 1):
            if attempt and a.expected_version == ANY_VERSION:
                await asyncio.sleep(random.uniform(0, RETRY_PAUSE_S * attempt))
            loaded = await self._current(a.game_id, a.expected_version, fresh)
            if a.expected_version not in (ANY_VERSION, loaded.version):
                behind = a.expected_version < loaded.version and not fresh
                if behind and await self._ahead_of_store(a.game_id, loaded):
                    fresh = True
                    continue
                # A retry of a command that went through carries the version it saw then.
                conflict = VersionConflict(a.expected_version, loaded.version)
                return await self._known(a.game_id, a.key, a.seat, a.digest, conflict)
            try:
                decision = self._decide(loaded, a.seat, a.typed, a.time_ms)
            except RaffeError as refusal:
                if fresh:  # a retried command may be refused by the state it produced
                    return await self._known(a.game_id, a.key, a.seat, a.digest, refusal)
                fresh = True
                continue
            try:
                return await self._append_decided(
                    a.game_id,
                    loaded,
                    decision,
                    a.seat,
                    a.command_id,
                    a.time_ms,
                    a.key,
                    a.digest,
                    a.said,
                )
            except VersionConflict:
                if a.expected_version != ANY_VERSION:
                    raise
                fresh = True
        raise Contended(f"game {a.game_id} moved on under this command {retries + 1} times")

    async def _ahead_of_store(self, game_id: str, loaded: GameAt[S]) -> bool:
        """Whether the cached state holds versions the store has not: appends a failover
        lost (read from the old primary, never acknowledged; on a cluster no hook tells
        of it). Asked only when a command is behind the cache, so never on the way of a
        command that agrees with it; when ahead, the entry is dropped."""
        if await self.store.version(game_id) >= loaded.version:
            return False
        log.warning("cache ahead of the store (a failover)", extra={"game_id": game_id})
        self._cache.drop(game_id)
        return True

    def _command(self, command: Mapping[str, Any]) -> Any:
        """The game's typed command (its commands.py), or a typed InvalidArgument."""
        if not isinstance(command, Mapping):
            raise InvalidArgument("a command is a JSON object", "bad_command")
        return self.game.command(command)

    def _decide(self, loaded: GameAt[S], seat: int, typed: Any, time_ms: int) -> Decision[S]:
        """The game's rules, with draws seeded by the game's seed and version."""
        rng = SeededRng(loaded.seed, loaded.version)
        return self.game.decide(loaded.state, seat, typed, rng, time_ms)

    async def _append_decided(
        self,
        game_id: str,
        loaded: GameAt[S],
        decision: Decision[S],
        seat: int,
        command_id: str,
        time_ms: int,
        key: str,
        digest: str,
        said: bytes = b"",
    ) -> Outcome:
        """Append at the version decided on (VersionConflict if another got there first);
        answer with the events, view and legal commands the author may see."""
        events = [to_new(e) for e in decision.events]
        # A bot now stands in for a seat: the runners follow the game from here on.
        follow = any(e.type in STAND_IN_EVENTS for e in events)
        result = await self._append(
            game_id, loaded.version, command_id, events, time_ms, key, digest, follow, said
        )
        if result.duplicate:  # the same command id was appended before
            return await self._duplicate(game_id, result, seat, digest)
        after = loaded.decided(decision, events)
        self._keep(game_id, after, ended=events[-1].type == GAME_ENDED)
        stored = self._as_stored(game_id, events, result, command_id, time_ms)
        seen = redact_stored(self.game, after.state, stored, seat, decision.events)
        return Outcome(game_id, result, seen, after.state)

    async def _known(
        self, game_id: str, key: str, seat: int, digest: str, error: RaffeError
    ) -> Outcome:
        """The answer of a command appended before under this key, or ``error``."""
        known = await self.store.command_result(game_id, key)
        if known is None:
            raise error
        return await self._duplicate(game_id, known, seat, digest)

    async def _append(
        self,
        game_id: str,
        expected: int,
        command_id: str,
        events: list[NewEvent],
        time_ms: int,
        key: str,
        digest: str,
        attended: bool = False,
        said: bytes = b"",
    ) -> AppendResult:
        return await self.store.append(
            game_id,
            self.game.name,
            expected,
            command_id,
            events,
            time_ms=time_ms,
            engine_version=self.game.engine_version,
            attended=attended,
            idempotency_key=key,
            digest=digest,
            command=said,
        )

    async def _current(self, game_id: str, expected: int, fresh: bool) -> GameAt[S]:
        """The cached state, without I/O when it can be trusted to try an append: the
        append itself checks the version. Read newer events when asked, when nothing is
        cached, or when the client has seen a version the cache has not."""
        cached = self._cache.get(game_id)
        if cached is None or fresh or expected > cached.version:
            return await self.load(game_id)
        self._found["trusted"].inc()
        return cached

    def _as_stored(
        self, game_id: str, events: list[NewEvent], r: AppendResult, command_id: str, time_ms: int
    ) -> list[StoredEvent]:
        """The events just appended, as a read would return them (no round trip)."""
        return [
            StoredEvent(
                game_id,
                self.game.name,
                r.first_version + i,
                e.id,
                e.type,
                e.schema_version,
                e.payload,
                e.actor,
                command_id,
                time_ms,
                self.game.engine_version,
                r.first_position + i,
            )
            for i, e in enumerate(events)
        ]

    async def _duplicate(
        self, game_id: str, result: AppendResult, seat: int, digest: str
    ) -> Outcome:
        """A known command id: its original result, events and the caller's view then;
        refused if the id was used for another command."""
        check_same(result, digest)
        state = await self._state_at(game_id, result.version)
        return await self._outcome(game_id, replace(result, duplicate=True), seat, state)

    async def _state_at(self, game_id: str, version: int) -> S:
        return state_at(self.game, await self.store.read_game_range(game_id, 0, version), version)

    async def _outcome(
        self, game_id: str, result: AppendResult, seat: int, state: S | None = None
    ) -> Outcome:
        stored = await self.store.read_game_range(game_id, result.first_version - 1, result.version)
        redacted = await self.redacted(game_id, stored, seat)
        return Outcome(game_id, result, redacted, state)

    # -- reads --------------------------------------------------------------------

    async def load(self, game_id: str) -> GameAt[S]:
        cached = self._cache.get(game_id)
        newer = await self.store.read_game(game_id, cached.version if cached else 0)
        if cached is None and not newer:
            raise UnknownGame(f"no game {game_id}")
        self._found["cold" if cached is None else "behind" if newer else "current"].inc()
        if cached is not None and not newer:
            return cached
        if newer[0].game_type != self.game.name:
            raise UnknownGame(f"game {game_id} is a {newer[0].game_type} game")
        if cached is None:
            seed = str(to_domain(newer[0]).data.get("seed", ""))
            cached = GameAt(self.game.initial(), 0, seed)
        loaded = cached.advanced(self.game, newer)
        self._keep(game_id, loaded, ended=newer[-1].type == GAME_ENDED)
        return loaded

    def _keep(self, game_id: str, at: GameAt[S], ended: bool) -> None:
        """Cache a game's state while it is played; a finished game (its last event is
        GameEnded, as every game's is) leaves the cache: no command changes it again, a
        read of it folds it afresh, and finished games held most of an engine's memory."""
        if ended:
            self._cache.drop(game_id)
        else:
            self._cache.keep(game_id, at)

    async def view(self, game_id: str, seat: int) -> tuple[int, dict[str, Any], dict[str, Any]]:
        loaded = await self.load(game_id)
        g = self.game
        return loaded.version, g.view(loaded.state, seat), g.status(loaded.state).to_json()

    async def view_and_commands(
        self, game_id: str, seat: int
    ) -> tuple[int, dict[str, Any], dict[str, Any], dict[str, Any]]:
        """View, status and legal commands of one state: what a bot needs for a move."""
        version, _, view, status, legal = await self.first_to_act(game_id, (), seat)
        return version, view, status, legal

    async def first_to_act(
        self, game_id: str, seats: Sequence[int], otherwise: int, with_commands: bool = True
    ) -> tuple[int, int, dict[str, Any], dict[str, Any], dict[str, Any]]:
        """Version, the seat answered for (the first of ``seats`` to act, else
        ``otherwise``), its view, the status and its legal commands (empty unless asked),
        of one state: a bot runner's look at a game with its bot's view (two reads
        before)."""
        loaded = await self.load(game_id)
        g, state = self.game, loaded.state
        status = g.status(state)
        seat = next((s for s in status.to_act if s in seats), otherwise)
        return (
            loaded.version,
            seat,
            g.view(state, seat),
            status.to_json(),
            g.legal_commands(state, seat) if with_commands else {},
        )

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
        return redact_stored(self.game, loaded.state, stored, seat)

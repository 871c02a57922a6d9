"""Creating and advancing a game in memory, exactly as the engine runtime does, for
bots, tests, benchmarks and evaluation scripts (no I/O)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from services.kernel.game import Event, Game, SeatSpec
from services.kernel.rng import SeededRng, seed_hash

S = TypeVar("S")


def created_event(
    options: Mapping[str, Any],
    seats: Sequence[SeatSpec],
    seed: str,
    practice: bool = False,
    rematch_of: str = "",
) -> Event:
    """The first event of every game: options, seats and the seed's commitment (AL-2).

    The seed itself is in the payload for the engine to derive draws; redaction drops it
    from everything a client sees until the game ends. ``practice``: the creator chose
    the seed (AL-2 allows it only where nothing is hidden from them)."""
    data: dict[str, Any] = {
        "options": dict(options),
        "seats": [s.record() for s in seats],
        "seed_hash": seed_hash(seed),
        "seed": seed,
    }
    if practice:
        data["practice"] = True
    if rematch_of:  # the finished game this one plays again (a rematch)
        data["rematch_of"] = rematch_of
    return Event("GameCreated", data)


def opening(
    game: Game[S],
    raw_options: Mapping[str, Any],
    seats: Sequence[SeatSpec],
    seed: str,
    now_ms: int = 0,
    practice: bool = False,
    rematch_of: str = "",
) -> list[Event]:
    """GameCreated and the game's setup events; raises InvalidArgument on bad options."""
    options = game.options(raw_options, seats)
    created = created_event(game.recorded_options(options), seats, seed, practice, rematch_of)
    state = game.evolve(game.initial(), created)
    return [created, *game.setup(state, options, SeededRng(seed, 0), now_ms)]


@dataclass
class Playthrough(Generic[S]):
    """A game folded in memory; ``version`` counts events like the event store does."""

    game: Game[S]
    seed: str
    state: S
    events: list[Event] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        game: Game[S],
        options: Mapping[str, Any],
        seats: Sequence[SeatSpec],
        seed: str,
        now_ms: int = 0,
    ) -> Playthrough[S]:
        p = cls(game, seed, game.initial())
        p.apply(opening(game, options, seats, seed, now_ms))
        return p

    @property
    def version(self) -> int:
        return len(self.events)

    def apply(self, events: Sequence[Event]) -> None:
        for e in events:
            self.state = self.game.evolve(self.state, e)
        self.events.extend(events)

    def execute(self, seat: int, command: Mapping[str, Any], now_ms: int = 0) -> list[Event]:
        rng = SeededRng(self.seed, self.version)
        typed = self.game.command(command)
        decided = self.game.decide(self.state, seat, typed, rng, now_ms)
        self.state = decided.state
        self.events.extend(decided.events)
        return decided.events


Bot = Callable[[dict[str, Any], dict[str, Any], SeededRng], dict[str, Any]]


def play_bots(
    game: Game[S],
    bots: Sequence[Bot],
    seed: str,
    options: Mapping[str, Any] | None = None,
    max_moves: int = 10_000,
    on_events: Callable[[list[Event]], None] | None = None,
) -> Playthrough[S]:
    """A whole game of bots in memory: whoever must act first moves, with the view and
    legal commands only (DESIGN §2). Raises if it does not end within ``max_moves``."""
    p = Playthrough.start(game, options or {}, [SeatSpec("bot")] * len(bots), seed)
    rng = SeededRng(seed, "bots")
    for _ in range(max_moves):
        if game.status(p.state).over:
            return p
        seat = game.status(p.state).to_act[0]
        command = bots[seat](game.view(p.state, seat), game.legal_commands(p.state, seat), rng)
        events = p.execute(seat, command)
        if on_events is not None:
            on_events(events)
    raise RuntimeError(f"game {seed} did not end in {max_moves} moves")


def bot_moves(
    game: Game[S], seats: int, seed: str, bot: Bot, options: Mapping[str, Any] | None = None
) -> list[tuple[int, int, dict[str, Any]]]:
    """A whole game's commands, (seat, version it is sent at, command), as ``bot`` would
    send them for every seat of a game created with ``seed`` (a practice game): the
    engine deals and rolls the same, so a client can replay them without game logic."""
    p = Playthrough.start(game, options or {}, [SeatSpec("human")] * seats, seed)
    rng, moves = SeededRng(seed, "bots"), []
    while not game.status(p.state).over:
        seat = game.status(p.state).to_act[0]
        command = bot(game.view(p.state, seat), game.legal_commands(p.state, seat), rng)
        moves.append((seat, p.version, command))
        p.execute(seat, command)
    return moves

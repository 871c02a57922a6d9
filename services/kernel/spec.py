"""Everything a game declares about itself, in one object (DESIGN §2).

Each game package's ``game.py`` builds one ``GameSpec`` named ``GAME``;
``services.games`` lists the packages, and every other place that needs to know the
games (engines, launcher, bots, tournaments, the gateway's schema, the manifests) reads
them from there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generic, Protocol, TypeVar

from pydantic import TypeAdapter, ValidationError

from services.kernel.errors import InvalidArgument
from services.kernel.events import EventTypes
from services.kernel.game import JSON, Decision, Event, Status
from services.kernel.how_to_play import Block
from services.kernel.playthrough import Bot
from services.kernel.rng import SeededRng

S = TypeVar("S")
S_in = TypeVar("S_in", contravariant=True)


# The shapes of a game's functions that take defaults (a plain Callable cannot say so);
# positional-only, so a game may name its parameters as it likes.
class Setup(Protocol[S_in]):
    def __call__(
        self, state: S_in, options: Mapping[str, Any], rng: SeededRng, now_ms: int = 0, /
    ) -> list[Event]: ...


class Decide(Protocol[S]):
    def __call__(
        self, state: S, seat: int, command: Any, rng: SeededRng, now_ms: int = 0, /
    ) -> Decision[S]: ...


class Expire(Protocol[S]):
    def __call__(
        self, state: S, seats: tuple[int, ...], rng: SeededRng, now_ms: int, /
    ) -> Decision[S]: ...


class View(Protocol[S_in]):
    def __call__(self, state: S_in, seat: int, reveal: bool = False, /) -> JSON: ...


def unchanged(options: dict[str, Any]) -> dict[str, Any]:
    return options


def unsealed(state: Any, event: Event) -> Event:
    return event


def no_scoring(final_view: Mapping[str, Any]) -> list[float]:
    raise ValueError("this game is not played in tournaments")


@dataclass(frozen=True)
class GameSpec(Generic[S]):
    """Satisfies services.kernel.game.Game from plain functions, and says what the
    machinery around the engine needs: its port, table sizes, bots, commands, scoring.
    Generic in the game's state: mypy checks each function a game hands in against the
    state its ``initial`` makes (an ``evolve`` of another game's state is an error)."""

    name: str  # the game type in the event store and the API, e.g. "giraffe-raffe"
    engine_version: str
    options: Callable[..., dict[str, Any]]  # (raw options, seats) -> options
    initial: Callable[[], S]
    setup: Setup[S]
    decide: Decide[S]
    evolve: Callable[[S, Event], S]
    status: Callable[[S], Status]
    view: View[S]
    redact: Callable[[S, Event, int], Event]
    legal_commands: Callable[[S, int], JSON]
    events: EventTypes | None = None  # the game's event types (events.py)
    title: str = ""
    # How to play it, for players (how_to_play.py): every client draws its rules page.
    how_to_play: tuple[Block, ...] = ()
    default_port: int = 0  # its engine's gRPC port when run locally; metrics on +1000
    commands: Any = None  # the union of the game's command models (commands.py)
    view_model: type | None = None  # the view's shape, for clients (view.py)
    legal_model: type | None = None  # the legal commands' shape, for clients (view.py)
    players: tuple[int, int] = (1, 1)  # at one table, least and most (tournament tables)
    bots: Mapping[str, Bot] = field(default_factory=dict)  # by level
    default_bot: str = ""
    # A level's name for people (beginner to master) and what it does, in a few words.
    bot_names: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # Levels that search (a fifth of a second of CPU a decision): the bot runner decides
    # them in its worker processes, never on its event loop or an engine's command path.
    searching_bots: frozenset[str] = frozenset()
    # One number per seat from a finished game's public view, higher is better.
    result_keys: Callable[[Mapping[str, Any]], list[float]] = no_scoring
    recorded_options: Callable[[dict[str, Any]], dict[str, Any]] = unchanged
    # Every game of this kind is followed by the runners (services.core.attention).
    always_attended: bool = False
    # The options as a JSON Schema for clients, with x-labels, x-when and x-seats (see
    # services/giraffe_raffe/options.py); a callable when it is built from data.
    options_schema: dict[str, Any] | Callable[[], dict[str, Any]] = field(default_factory=dict)
    # What a finished game still hides from everyone (its log is otherwise public then):
    # ``seal(state, event) -> event``, e.g. a deck other tables are still playing.
    seal: Callable[[S, Event], Event] = unsealed
    # Other ways to play it than the defaults (a mode, a clock): the tests that walk every
    # game play each of these too, so a new game says here what else it can be.
    variants: tuple[dict[str, Any], ...] = ()
    # The documented default move (AL-3) of the seats whose time bank ran out, when every
    # seat the game waits on is out of time: ``expire(state, seats, rng, now_ms)``. A game
    # without one offers no time banks (services.kernel.table).
    expire: Expire[S] | None = None
    # The command types its own clock sends at a deadline (its status's ``on_deadline``):
    # the table has the bots of the seats out of time move instead (AL-3). Named here so
    # that other commands cost no look at the status.
    clock_commands: frozenset[str] = frozenset({"timeout"})

    @cached_property
    def _command_schema(self) -> TypeAdapter[Any]:
        return TypeAdapter(self.commands)

    def command(self, raw: Mapping[str, Any]) -> Any:
        """The typed command (commands.py) of a client's JSON, or InvalidArgument naming
        what is wrong; a game without command types gets the mapping as it came."""
        if self.commands is None:
            return raw
        try:
            return self._command_schema.validate_python(raw)
        except ValidationError as error:
            raise command_error(error) from None

    def seat_rule(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The seats a table of these options takes (the options schema's x-seats rule
        that applies: "min", "max", "kinds"); a game without one: its ``players``."""
        schema = self.options_schema() if callable(self.options_schema) else self.options_schema
        rules: dict[str, Any] = schema.get("x-seats", {})
        for option, by_value in rules.items():
            if option != "default" and str(options.get(option)) in by_value:
                return dict(by_value[str(options.get(option))])
        least, most = self.players
        return dict(rules.get("default", {"min": least, "max": most}))

    def bot(self, level: str) -> Bot:
        """The bot of ``level``, or the default one for an empty or unknown level."""
        return self.bots.get(level or self.default_bot, self.bots[self.default_bot])


# Pydantic's complaint about a command, as the codes every game has always answered.
ERROR_CODES = {
    "union_tag_invalid": "unknown_command",
    "union_tag_not_found": "unknown_command",
    "model_attributes_type": "unknown_command",
    "model_type": "unknown_command",
    "extra_forbidden": "unknown_field",
    "missing": "missing_field",
}


def command_error(error: ValidationError) -> InvalidArgument:
    """The first complaint, coded by its kind or as ``bad_<field>`` (e.g. bad_cards)."""
    first = error.errors(include_url=False)[0]
    fields = [part for part in first["loc"] if isinstance(part, str)]
    if fields[-1:] == ["type"]:  # a game of one command type, sent another
        return InvalidArgument(f"unknown command: {first['msg']}", "unknown_command")
    code = ERROR_CODES.get(first["type"], f"bad_{fields[-1]}" if fields else "bad_command")
    where = ".".join(str(part) for part in first["loc"]) or "command"
    return InvalidArgument(f"{where}: {first['msg']}", code)

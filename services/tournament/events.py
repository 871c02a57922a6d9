"""What can happen in a tournament, typed as a game's events are (services.kernel.events):
the API document publishes each type's payload, and the fold names each type it reads."""

from __future__ import annotations

from typing import Any

from services.kernel.events import EventTypes, GameCreated, event


@event
class GameOptionsSet:
    """The tables' game options, recorded apart from GameCreated (a custom deck's answers
    are redacted from it until the tournament ends)."""

    game_options: dict[str, Any]


@event
class PlayerRegistered:
    player: int  # the entrant's number, in order of registration
    name: str
    kind: str  # "human" or "bot"
    bot_level: str = ""
    # An account's entrant (docs/bot-api.md): its tables seat that account, whose token
    # plays them; ``program``: a bot account's, which a ladder takes as a bot.
    account: str | None = None
    program: bool | None = None


@event
class PlayerRemoved:
    player: int


@event
class TournamentStarted:
    players: int  # entrants at the start


@event
class RoundStarted:
    round: int
    game: str  # the game its tables play
    tables: list[dict[str, Any]]  # {"table": n, "players": [entrant numbers by seat]}
    byes: list[int]


@event
class TableFinished:
    round: int
    table: int
    keys: list[float]  # the game's result keys, by seat (higher is better)
    ratings: list[list[float]]  # each seat's player's [mu, sigma] after the game


@event
class TableFinishedHeld:
    """TableFinished as the public sees it while its round is held back (a table's result
    would tell the tables of the round still playing their decks' answers)."""

    round: int
    table: int


@event
class RoundEnded:
    round: int
    points: list[float]  # every entrant's points from the round
    ratings: list[list[float]]  # every entrant's [mu, sigma] after it
    alive: list[int]  # elimination: who goes on, in standings order


@event
class GameEnded:
    champions: list[int]
    seed: str = ""


EVENTS = EventTypes(
    GameCreated,
    GameOptionsSet,
    PlayerRegistered,
    PlayerRemoved,
    TournamentStarted,
    RoundStarted,
    TableFinished,
    RoundEnded,
    GameEnded,
    seen={"TableFinished": TableFinishedHeld},
    hidden=("GameOptionsSet",),  # its secret options left out, in its own shape
)

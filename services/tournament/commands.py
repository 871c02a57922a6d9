"""The tournament's commands, typed as every game's are (services.kernel.commands.Strict:
unknown fields refused, a wrong type coded ``bad_<field>``). What only the state can
say (a name taken, a table of the current round, as many keys as seats) rules.py checks;
so does what kept its older code (a kind other than human or bot: ``bad_player``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, StrictInt

from services.kernel.commands import Strict


def _number(value: Any) -> Any:
    """A key is a number, not a bool (which Python counts as one)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("a key is a number")
    return value


Key = Annotated[float, BeforeValidator(_number)]


class Register(Strict):
    """The organiser registers a player (a person or a bot of a level)."""

    type: Literal["register"]
    name: str | None = None
    kind: str = "bot"
    bot_level: str | None = None
    account: str | None = Field(None, pattern=r"^pl[0-9a-f]{24}$")  # its tables seat it
    program: bool = False  # the account is a bot's (the gateway says, from the directory)


class Join(Strict):
    """A person registers themself into an open tournament (sent by the gateway)."""

    type: Literal["join"]
    name: str | None = None
    account: str | None = Field(None, pattern=r"^pl[0-9a-f]{24}$")  # a signed-in player
    program: bool = False


class Remove(Strict):
    """The organiser takes an entrant out before the start."""

    type: Literal["remove"]
    player: StrictInt | None = None


class Start(Strict):
    """The organiser starts the tournament: the first round is paired."""

    type: Literal["start"]


class Result(Strict):
    """The tournament runner reports a finished table: one key per seat (higher is
    better, the game's result_keys)."""

    type: Literal["result"]
    round: StrictInt | None = None
    table: StrictInt | None = None
    keys: list[Key] | None = None


Command = Annotated[Register | Join | Remove | Start | Result, Field(discriminator="type")]

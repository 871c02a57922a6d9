"""The table's commands, which every game takes besides its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from services.kernel.commands import Strict

CLAIM_AFTER_S = 60  # default countdown before a table of two may claim a gone seat's game


class Concede(Strict):
    """Give the game up: you rank last; a bot plays your seat for the others (at a table
    of two the other player wins at once)."""

    type: Literal["concede"]


class Leave(Strict):
    """Leave the table: you rank last; a bot plays your seat so the others can finish."""

    type: Literal["leave"]


class Return(Strict):
    """Take your seat back from the bot that stood in while you were gone."""

    type: Literal["return"]


class ClaimWin(Strict):
    """At a table of two whose other player left or is gone: end the game as its winner
    (after the countdown the view shows as ``claim_from_ms``)."""

    type: Literal["claim_win"]


class Flag(Strict):
    """A time bank ran out: the seats out of time make the game's default move (sent by
    the bot runner at the status's deadline; anyone may send it)."""

    type: Literal["flag"]


class MarkGone(Strict):
    """The engine's only (seat -1): presence found ``seat``'s player gone."""

    type: Literal["seat_gone"]
    seat: int = Field(ge=0)
    claim_after_s: int = Field(default=CLAIM_AFTER_S, ge=0, le=3600)


class Vacation(Strict):
    """The engine's only (seat -1, for the gateway): ``seat``'s player is on vacation until
    ``until_ms`` (a past time ends it): at a turn-based table its clock does not run
    meanwhile, and a turn that comes starts its clock when the vacation ends."""

    type: Literal["vacation"]
    seat: int = Field(ge=0)
    until_ms: int = Field(ge=0)


TABLE_COMMANDS = (Concede, Leave, Return, ClaimWin, Flag, MarkGone, Vacation)


@dataclass(frozen=True)
class StandIn:
    """A command the bot runner plays for a seat a bot stands in for (the runtime wraps
    it when the engine call says so): the table refuses it for a seat its player holds,
    and refuses the player's own commands while a bot stands in."""

    command: Any

"""What can happen in Giraffometer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from services.kernel.events import EventTypes, GameCreated, Upcast, event


@event
class DeckLoaded:
    """A custom deck's facts, answers included (redacted until each is revealed)."""

    name: str
    facts: Sequence[Mapping[str, Any]]


@event
class DeckShuffled:
    order: Sequence[str]  # secret: which facts come next


@event
class DeckReshuffled:
    order: Sequence[str]  # GM-5: the discards shuffled under what was left


@event
class RoundStarted:
    round: int
    ids: Sequence[str]
    facts: Sequence[Mapping[str, Any]]  # the six facts, without answers
    deadline_ms: int = 0


@event
class VoteCast:
    seat: int
    lowest: int  # secret until the reveal; others see the commitment
    highest: int
    salt: str
    commitment: str


def _closed_by(v1: dict[str, Any]) -> dict[str, Any]:
    """Version 1 said only whether the round timer closed the round."""
    data = {k: v for k, v in v1.items() if k != "closed_by_timer"}
    return {**data, "closed_by": "timer" if v1.get("closed_by_timer") else "votes"}


@event
class RoundRevealed:
    """Version 2 (docs/events.md): ``closed_by`` says what closed the round: every vote
    in ("votes"), the round timer ("timer"), or the seats still to vote out of time on
    their time banks ("clock"); version 1 had ``closed_by_timer: bool``."""

    VERSION: ClassVar[int] = 2
    UPCASTS: ClassVar[Mapping[int, Upcast]] = {1: _closed_by}

    round: int
    answers: Sequence[float]
    lowest_position: int
    highest_position: int
    votes: Mapping[str, Mapping[str, Any]]
    changes: Sequence[int]
    scores: Sequence[int]
    closed_by: str = "votes"


@event
class GameEnded:
    winners: Sequence[int]
    losers: Sequence[int] = ()
    seed: str = ""


@event
class OrderSeen:
    """DeckShuffled and DeckReshuffled as every seat sees them while the game runs: how
    many facts, not their order."""

    count: int


@event
class VoteSeen:
    """VoteCast as the other seats see it until the reveal: who voted, and the
    commitment that the reveal will be checked against."""

    seat: int
    commitment: str


EVENTS = EventTypes(
    GameCreated,
    DeckLoaded,
    DeckShuffled,
    DeckReshuffled,
    RoundStarted,
    VoteCast,
    RoundRevealed,
    GameEnded,
    seen={"DeckShuffled": OrderSeen, "DeckReshuffled": OrderSeen, "VoteCast": VoteSeen},
    hidden=("DeckLoaded",),  # its answers left out, in its own shape
)

"""What can happen in Giraffe Raffe. Lists arrive as lists from JSON and as tuples from
decide; folds accept both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.kernel.events import EventTypes, GameCreated, event


@event
class CardsDealt:
    round: int
    dealer: int
    hands: Sequence[Sequence[str]]  # secret: each seat sees its own (view.redact)
    redraw: Sequence[str]
    out: Sequence[str]
    robot_deck: Sequence[str] = ()


@event
class TurnStarted:
    seat: int
    deadline_ms: int = 0


@event
class CardsPlayed:
    seat: int
    tree: str
    cards: Sequence[str]
    copies: Mapping[str, str]


@event
class RedrawCardTaken:
    seat: int
    card: str  # secret to the other seats
    to: str = "hand"  # or "robot_deck"


@event
class ApplesTaken:
    seat: int
    count: int


@event
class AppleReturned:
    seat: int


@event
class RobotCardsDrawn:
    cards: Sequence[str]


@event
class RobotTieOffered:
    tree: str
    options: Sequence[Mapping[str, Any]]  # {"cards": [...], "copies": {...}}


@event
class PlayerLost:
    seat: int
    round: int


@event
class RottenAppleTaken:
    seat: int


@event
class GameEnded:
    winners: Sequence[int]
    losers: Sequence[int]
    seed: str = ""


@event
class CardsDealtSeen:
    """CardsDealt as a seat sees it while the game runs: its own hand (and, solo, the
    Robot's), the others' sizes."""

    round: int
    dealer: int
    hand_sizes: Sequence[int]
    hands: Mapping[str, Sequence[str]]  # by seat number
    redraw_size: int
    out_size: int
    robot_deck_size: int


@event
class RedrawCardTakenSeen:
    """RedrawCardTaken as the other seats see it (and everyone, when it goes to the
    Robot's deck): without the card."""

    seat: int
    to: str = "hand"


EVENTS = EventTypes(
    GameCreated,
    CardsDealt,
    TurnStarted,
    CardsPlayed,
    RedrawCardTaken,
    ApplesTaken,
    AppleReturned,
    RobotCardsDrawn,
    RobotTieOffered,
    PlayerLost,
    RottenAppleTaken,
    GameEnded,
    seen={"CardsDealt": CardsDealtSeen, "RedrawCardTaken": RedrawCardTakenSeen},
    hidden=(),  # only those two
)

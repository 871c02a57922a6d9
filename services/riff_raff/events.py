"""What can happen in Riff Raff. With a turn timer, the events after which someone new
must act carry ``deadline_ms`` (flow.stamp_deadline)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.kernel.events import EventTypes, GameCreated, event


@event
class CaptainNamed:
    seat: int


@event
class RoundStarted:
    round: int
    deadline_ms: int | None = None


@event
class CardsReturned:
    """RR-6: with two players, everyone takes their cards back once."""


@event
class CardChosen:
    seat: int
    card: int  # secret until revealed; others see the commitment
    salt: str
    commitment: str


@event
class CardsRevealed:
    cards: Mapping[str, int]
    salts: Mapping[str, str]


@event
class DecisionPending:
    kind: str  # "choose_captain" | "order_players"
    by: int
    seats: Sequence[int]
    decided: Mapping[str, Any] | None = None
    deadline_ms: int | None = None


@event
class CaptainChosen:
    seat: int


@event
class PlayersOrdered:
    seats: Sequence[int]
    order: Sequence[int]


@event
class TurnOrderSet:
    order: Sequence[int]


@event
class TurnStarted:
    seat: int
    area: int
    deadline_ms: int | None = None


@event
class PieceLoaded:
    seat: int
    piece: str
    area: int
    double: bool
    # simulated mode: the placement and the ship's answer (RR-7: read, never recomputed)
    position: float | None = None
    orientation: float | None = None
    outcome: Mapping[str, Any] | None = None
    physics: str | None = None
    deadline_ms: int | None = None


@event
class CatchAttempted:
    seat: int
    attempts: Sequence[Mapping[str, Any]]


@event
class FallReported:
    seat: int
    fell: Sequence[str]
    caught: Sequence[str]
    second_not_loaded: bool = False
    settled: bool | None = None
    deadline_ms: int | None = None


@event
class ReportAccepted:
    seat: int


@event
class ReportDisputed:
    seat: int
    deadline_ms: int | None = None


@event
class FallResolved:
    seat: int
    removed: Sequence[str]
    to_player: Sequence[str]


@event
class TurnEnded:
    seat: int


@event
class GameEnded:
    winners: Sequence[int]
    reason: str
    seed: str = ""
    pieces: Sequence[int] | None = None


@event
class CardChosenSeen:
    """CardChosen as the other seats see it until the reveal: who chose, and the
    commitment the reveal is checked against."""

    seat: int
    commitment: str


EVENTS = EventTypes(
    GameCreated,
    CaptainNamed,
    RoundStarted,
    CardsReturned,
    CardChosen,
    CardsRevealed,
    DecisionPending,
    CaptainChosen,
    PlayersOrdered,
    TurnOrderSet,
    TurnStarted,
    PieceLoaded,
    CatchAttempted,
    FallReported,
    ReportAccepted,
    ReportDisputed,
    FallResolved,
    TurnEnded,
    GameEnded,
    seen={"CardChosen": CardChosenSeen},
    hidden=(),  # only that one
)

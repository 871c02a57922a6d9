"""A challenge's events, in its own stream (aggregate type ``challenge``, docs/social.md).
Ids and the table asked for: nothing personal."""

from __future__ import annotations

from typing import Any

from services.kernel.events import EventTypes, event


@event
class ChallengeIssued:
    """``challenger`` asks ``invitee`` to a new table: the game, its seats (the two
    players first, bots in the rest) and options, open until ``expires_ms``."""

    challenger: str
    invitee: str
    game: str
    seats: int
    options: dict[str, Any]
    expires_ms: int


@event
class ChallengeAccepted:
    """The invitee took it: the table ``game_id`` was created with both seated."""

    game_id: str


@event
class ChallengeDeclined:
    reason: str


@event
class ChallengeCancelled:
    """The challenger took it back."""


TYPES = EventTypes(ChallengeIssued, ChallengeAccepted, ChallengeDeclined, ChallengeCancelled)

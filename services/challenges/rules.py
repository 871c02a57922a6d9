"""Challenges as pure rules (docs/social.md): a challenge is open until accepted,
declined, cancelled or its time runs out; only the invitee answers it, only the
challenger takes it back."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.challenges.events import (
    TYPES,
    ChallengeAccepted,
    ChallengeCancelled,
    ChallengeDeclined,
    ChallengeIssued,
)
from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.game import Event

DECLINE_REASONS = ("generic", "later", "not_this_game", "no_bots")


@dataclass(frozen=True, slots=True)
class Challenge:
    version: int = 0
    challenger: str = ""
    invitee: str = ""
    game: str = ""
    seats: int = 2
    options: tuple[tuple[str, Any], ...] = ()
    created_ms: int = 0
    expires_ms: int = 0
    state: str = ""  # "" (none), open, accepted, declined, cancelled
    game_id: str = ""
    reason: str = ""

    def shown_state(self, now_ms: int) -> str:
        """Its state as people see it: an open one past its time is expired."""
        return "expired" if self.state == "open" and now_ms >= self.expires_ms else self.state


def issue(
    state: Challenge,
    challenger: str,
    invitee: str,
    game: str,
    seats: int,
    options: dict[str, Any],
    expires_ms: int,
) -> list[Any]:
    if state.state:
        raise RuleViolation("that challenge exists already", "exists")
    if challenger == invitee:
        raise InvalidArgument("you cannot challenge yourself", "self")
    return [ChallengeIssued(challenger, invitee, game, seats, options, expires_ms)]


def _open(state: Challenge, now_ms: int) -> None:
    shown = state.shown_state(now_ms)
    if shown == "":
        raise RuleViolation("there is no such challenge", "no_challenge")
    if shown != "open":
        raise RuleViolation(f"the challenge is {shown}", f"challenge_{shown}")


def accept(state: Challenge, who: str, game_id: str, now_ms: int) -> list[Any]:
    _open(state, now_ms)
    if who != state.invitee:
        raise RuleViolation("only the player challenged answers it", "not_yours")
    return [ChallengeAccepted(game_id)]


def decline(state: Challenge, who: str, reason: str, now_ms: int) -> list[Any]:
    _open(state, now_ms)
    if who != state.invitee:
        raise RuleViolation("only the player challenged answers it", "not_yours")
    if reason not in DECLINE_REASONS:
        raise InvalidArgument(f"reason is one of {', '.join(DECLINE_REASONS)}", "bad_reason")
    return [ChallengeDeclined(reason)]


def cancel(state: Challenge, who: str, now_ms: int) -> list[Any]:
    _open(state, now_ms)
    if who != state.challenger:
        raise RuleViolation("only the challenger takes it back", "not_yours")
    return [ChallengeCancelled()]


def evolve(state: Challenge, typed: Any, time_ms: int) -> Challenge:
    state = dataclasses.replace(state, version=state.version + 1)
    if isinstance(typed, ChallengeIssued):
        return dataclasses.replace(
            state,
            challenger=typed.challenger,
            invitee=typed.invitee,
            game=typed.game,
            seats=typed.seats,
            options=tuple(sorted(dict(typed.options).items())),
            created_ms=time_ms,
            expires_ms=typed.expires_ms,
            state="open",
        )
    if isinstance(typed, ChallengeAccepted):
        return dataclasses.replace(state, state="accepted", game_id=typed.game_id)
    if isinstance(typed, ChallengeDeclined):
        return dataclasses.replace(state, state="declined", reason=typed.reason)
    if isinstance(typed, ChallengeCancelled):
        return dataclasses.replace(state, state="cancelled")
    raise TypeError(f"no fold for {type(typed).__name__}")


def fold(stored: Sequence[tuple[Event, int]], state: Challenge | None = None) -> Challenge:
    state = state or Challenge()
    for event, time_ms in stored:
        state = evolve(state, TYPES.parse(event), time_ms)
    return state

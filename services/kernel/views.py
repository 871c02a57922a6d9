"""Shapes every game's view shares, for the typed view models each game declares in its
view.py (documentation for clients: the OpenAPI document and generated clients; a test
checks real views against them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Shape(BaseModel):
    """A view model: a field the game does not declare fails the view-shape test."""

    model_config = ConfigDict(extra="forbid")


class StatusShape(BaseModel):
    """Who must act; the outcome once over; game-specific detail (deadline_ms, round...)."""

    model_config = ConfigDict(extra="allow")

    to_act: list[int]
    over: bool
    winners: list[int]
    losers: list[int]
    deadline_ms: int | None = None
    on_deadline: dict[str, Any] | None = None


class LegalShape(BaseModel):
    """A seat's legal commands: each entry a command type with what it may carry (a
    game's own keys: Giraffe Raffe's trees and options, Riff Raff's phase...)."""

    model_config = ConfigDict(extra="allow", title="LegalCommands")

    seat: int
    to_act: bool
    commands: list[dict[str, Any]]

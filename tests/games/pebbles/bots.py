"""Pebbles' bots: a random one, and one that leaves a multiple of four when it can."""

from __future__ import annotations

from typing import Any

from services.kernel.rng import SeededRng


def counts(legal: dict[str, Any]) -> list[int]:
    return list(legal["commands"][0]["counts"])


def random_bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> dict[str, Any]:
    return {"type": "play", "count": rng.choice(counts(legal))}


def perfect_bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> dict[str, Any]:
    best = view["pile"] % 4
    return {"type": "play", "count": best if best in counts(legal) else counts(legal)[0]}


BOTS = {"random": random_bot, "perfect": perfect_bot}

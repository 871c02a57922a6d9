"""What a bot ladder publishes (docs/bots.md), read off a finished ladder tournament's
public view: per level its openskill rating, its mean place and its win rate with 95%
confidence intervals, and for any two levels the mean difference of their places on the
same deals (each deal a round, every level in every seat), which is how a ladder says
that one level beats another.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.96


@dataclass(frozen=True)
class Interval:
    mean: float
    half: float  # the 95% interval is mean ± half

    @property
    def excludes_zero(self) -> bool:
        return abs(self.mean) > self.half

    def __str__(self) -> str:
        return f"{self.mean:.3f} ± {self.half:.3f}"


@dataclass(frozen=True)
class LevelResult:
    level: str
    mu: float
    sigma: float
    games: int
    place: Interval  # 1 is first; a shared place counts as the best of it
    wins: Interval  # a share of games: first place, alone or shared


def interval(values: Sequence[float]) -> Interval:
    n = len(values)
    if n == 0:
        return Interval(math.nan, math.nan)
    mean = sum(values) / n
    if n == 1:
        return Interval(mean, math.inf)
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return Interval(mean, Z95 * math.sqrt(variance / n))


def places(keys: Sequence[float]) -> list[int]:
    """Each seat's place from its result keys (higher is better; ties share a place)."""
    return [1 + sum(other > mine for other in keys) for mine in keys]


def _by_round(view: Mapping[str, Any]) -> list[dict[int, tuple[float, float]]]:
    """Per finished round (a deal, played in every rotation): each entrant's mean place
    and share of first places over the round's tables. Deals are independent of each
    other; a deal's tables are not (the same cards), so intervals are taken over deals."""
    out = []
    for r in view["rounds"]:
        if not r["tables"] or any(t["keys"] is None for t in r["tables"]):
            continue  # a round still being played
        seen: dict[int, list[int]] = {}
        for t in r["tables"]:
            for player, place in zip(t["players"], places(t["keys"]), strict=True):
                seen.setdefault(player, []).append(place)
        out.append({p: (sum(v) / len(v), sum(x == 1 for x in v) / len(v)) for p, v in seen.items()})
    return out


def levels(view: Mapping[str, Any]) -> list[LevelResult]:
    """Every entrant (a bot level) of a ladder, best rated first."""
    ratings = {s["player"]: s["rating"] for s in view.get("standings", [])}
    rounds = _by_round(view)
    out = []
    for entrant in view["players"]:
        p = entrant["player"]
        mine = [r[p] for r in rounds if p in r]
        tables = sum(len(r["tables"]) for r in view["rounds"] if p in _seated(r))
        rating = ratings.get(p, {"mu": math.nan, "sigma": math.nan})
        out.append(
            LevelResult(
                entrant["bot_level"] or entrant["name"],
                rating["mu"],
                rating["sigma"],
                tables,
                interval([place for place, _ in mine]),
                interval([won for _, won in mine]),
            )
        )
    return sorted(out, key=lambda r: -(r.mu - 3 * r.sigma))


def _seated(r: Mapping[str, Any]) -> set[int]:
    return {p for t in r["tables"] if t["keys"] is not None for p in t["players"]}


def paired(view: Mapping[str, Any], better: str, than: str) -> Interval:
    """How many places ``better`` finishes ahead of ``than`` on the same deal, on
    average over the ladder's deals (positive: ``better`` is better)."""
    level = {e["bot_level"] or e["name"]: e["player"] for e in view["players"]}
    a, b = level[better], level[than]
    return interval([r[b][0] - r[a][0] for r in _by_round(view) if a in r and b in r])

"""How a finished game ranks its seats, and how a table's result becomes points.

Every game's result is reduced to one number per seat, higher is better (the *key*,
each game's ``result_keys``, e.g. Giraffometer's crystals). Table points are
the same for every game: one per seat beaten at the table, a half per tie. In duplicate
mode a seat's key is compared with the keys of the same seat at the other tables of the
round, which all played the same deal (matchpoints).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.games import GAMES


def result_keys(game: str, final_view: Mapping[str, Any]) -> list[float]:
    """One key per seat from a finished game's public view (higher is better)."""
    return GAMES[game].result_keys(final_view)


def table_points(keys: Sequence[float]) -> list[float]:
    """One point per seat beaten at the table, half a point per tie."""
    return [
        sum(1.0 if mine > other else 0.5 if mine == other else 0.0 for other in keys) - 0.5
        for mine in keys
    ]


def matchpoints(tables: Sequence[Sequence[float]]) -> list[list[float]]:
    """Duplicate scoring: each seat against the same seat at every other table of the deal."""
    out = [[0.0] * len(keys) for keys in tables]
    for seat in range(max((len(k) for k in tables), default=0)):
        at_seat = [(t, keys[seat]) for t, keys in enumerate(tables) if seat < len(keys)]
        for t, mine in at_seat:
            out[t][seat] = sum(
                1.0 if mine > other else 0.5 if mine == other else 0.0
                for u, other in at_seat
                if u != t
            )
    return out


def ranks(keys: Sequence[float]) -> list[int]:
    """Placings (1 = best, ties share the better placing), as rating models expect."""
    return [1 + sum(1 for other in keys if other > mine) for mine in keys]

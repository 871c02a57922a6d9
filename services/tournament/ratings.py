"""Multiplayer skill ratings (openskill's Plackett-Luce model), one rating per player.

Ratings change only at the end of a round, from each table's placings, and the new
values are recorded in RoundEnded so a replay never recomputes them (a newer openskill
could round differently)."""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
Rating = tuple[float, float]  # mu, sigma
INITIAL: Rating = (MODEL.mu, MODEL.sigma)


def rate(
    ratings: Sequence[Rating], tables: Sequence[tuple[Sequence[int], Sequence[int]]]
) -> list[Rating]:
    """New ratings after the given tables: (players, placings with 1 = best) each."""
    out = list(ratings)
    for players, placings in tables:
        teams = [[MODEL.rating(mu=ratings[p][0], sigma=ratings[p][1])] for p in players]
        rated = MODEL.rate(teams, ranks=list(placings))
        for p, team in zip(players, rated, strict=True):
            out[p] = (round(team[0].mu, 6), round(team[0].sigma, 6))
    return out


def ordinal(rating: Rating) -> float:
    """A conservative single number to sort and chart by (mu - 3 sigma)."""
    return round(rating[0] - 3 * rating[1], 6)

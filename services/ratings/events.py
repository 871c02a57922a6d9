"""A ratings stream's one event: one rated game's result and what it did to each player's
rating. The values are recorded, not recomputed on replay: openskill's update depends on
the order games are rated in (and a newer openskill could round differently), so the
stream, not a re-run, is what every rebuild folds."""

from __future__ import annotations

from services.kernel.events import EventTypes, event


@event
class GameRated:
    game_id: str
    game: str
    ended_ms: int
    players: list[str]  # by seat: a player id, or "bot:<level>"
    places: list[int]  # by seat, 1 = best, ties share the better place
    before: list[list[float]]  # by seat: [mu, sigma]
    after: list[list[float]]
    games: list[int]  # by seat: the player's rated games of this kind, this one included
    left: list[int] | None = None  # seats whose player left: ranked last, and penalised


TYPES = EventTypes(GameRated)

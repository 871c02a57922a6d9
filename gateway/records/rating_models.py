"""Response bodies of ratings and leaderboards (gateway.records.ratings)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class BoardRow(BaseModel):
    rank: int
    player_id: str = Field(description="a player's id, or bot:<level> (a bot level is a player)")
    name: str = Field(description="empty for an erased player")
    score: float = Field(description="the rating boards sort by: openskill's mu - 3 sigma")
    rating: int = Field(description="the rating shown to people: 1500 + 40 x score, rounded")
    games: int
    bot_account: bool = Field(False, description="a program's account (docs/bot-api.md)")


class Leaderboard(BaseModel):
    game: str
    season: str = Field(description='a season\'s number, or "all"')
    starts_ms: int = Field(description="0 for all time")
    ends_ms: int
    players: int = Field(description="players on this board")
    provisional_games: int = Field(
        description="rated games a player plays before the boards list them"
    )
    entries: list[BoardRow]


class Rating(BaseModel):
    mu: float
    sigma: float
    score: float
    rating: int = Field(description="the rating shown to people: 1500 + 40 x score, rounded")
    games: int
    provisional: bool = Field(description="fewer rated games than RAFFE_PROVISIONAL_GAMES")
    provisional_left: int = Field(description="rated games to go until it is not provisional")


class Opponent(BaseModel):
    player_id: str
    name: str
    place: int
    bot_account: bool = Field(False, description="a program's account (docs/bot-api.md)")


class RatedGame(BaseModel):
    game_id: str
    game: str
    ended_ms: int
    seat: int
    place: int = Field(description="1 = best; ties share the better place")
    players: list[Opponent]
    before: float = Field(description="the player's score before this game")
    after: float
    rating_before: int = Field(description="the shown rating before this game")
    rating_after: int
    replay: str = Field(description="where the game's replay is")


class PlayerGames(BaseModel):
    player_id: str
    ratings: dict[str, Rating] = Field(description="by game kind, the kinds rated so far")
    games: list[RatedGame]

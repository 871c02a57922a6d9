"""Ratings, leaderboards and players' rated games (docs/ratings.md)."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from gateway.clients import Clients
from gateway.http.auth import ClientsDep
from gateway.http.problems import Problem
from gateway.records.rating_models import Leaderboard, PlayerGames
from services.games import GAMES
from services.ratings.rules import score, shown

router = APIRouter(tags=["ratings"])
RATED_ID = r"^(pl[0-9a-f]{24}|bot:[A-Za-z0-9_-]{1,32})$"
RatedId = Annotated[str, Path(pattern=RATED_ID, description="a player's id, or bot:<level>")]
Season = Annotated[str, Query(pattern=r"^(current|all|\d{1,6})$")]
PROBLEMS: dict[int | str, dict[str, Any]] = {
    404: {"description": "no such game kind", "content": {"application/problem+json": {}}},
    422: {"description": "invalid request", "content": {"application/problem+json": {}}},
}


def kind(game: str) -> str:
    if game not in GAMES:
        raise Problem(404, "unknown_game", f"no game kind {game}")
    return game


async def season_of(c: Clients, season: str) -> tuple[str, int, int]:
    """The board's name and its season's bounds (0, 0 for all time)."""
    if season == "all":
        return "all", 0, 0
    number = c.boards.seasons.of(int(time.time() * 1000)) if season == "current" else int(season)
    first, end = c.boards.seasons.bounds(number)
    return str(number), first, end


async def rows(c: Clients, game: str, found: list[tuple[int, str, float]]) -> list[dict[str, Any]]:
    players = [p for _, p, _ in found]
    names = await c.player_names(players)
    bots = await c.accounts.bots(players)
    ratings = await c.boards.ratings_many(game, players)
    return [
        {
            "rank": rank,
            "player_id": player,
            "name": names.get(player, ""),
            "score": board_score,
            "rating": shown(board_score),
            "games": ratings.get(player, {}).get("games", 0),
            "bot_account": player in bots,
        }
        for rank, player, board_score in found
    ]


@router.get("/v1/leaderboards/{game}", response_model=Leaderboard, responses=PROBLEMS)
async def leaderboard(
    game: str,
    c: ClientsDep,
    season: Season = "current",
    first: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    around: Annotated[str | None, Query(pattern=RATED_ID)] = None,
) -> dict[str, Any]:
    """A game kind's leaderboard for a season (``current``, a number, or ``all`` time):
    the top ``limit`` from rank ``first``, or with ``around`` (a player's id) the ranks
    around that player's. Players appear once past their provisional games."""
    board, starts, ends = await season_of(c, season)
    if around is not None:
        rank = await c.boards.rank(kind(game), board, around)
        first = max(1, (rank or 1) - limit // 2)
    found = await c.boards.board(kind(game), board, first, limit)
    return {
        "game": game,
        "season": board,
        "starts_ms": starts,
        "ends_ms": ends,
        "players": await c.boards.size(game, board),
        "provisional_games": c.boards.provisional,
        "entries": await rows(c, game, found),
    }


@router.get("/v1/players/{player_id}/games", response_model=PlayerGames, responses=PROBLEMS)
async def rated_games(
    player_id: RatedId,
    c: ClientsDep,
    game: Annotated[str | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """A player's rated games, newest first, each with the rating before and after and
    a link to its replay; with their rating per game kind now."""
    games = [kind(game)] if game else list(GAMES)
    history: list[dict[str, Any]] = []
    for g in games:
        history += [{**h, "game": g} for h in await c.boards.history(g, player_id, limit)]
    history.sort(key=lambda h: h["ended_ms"], reverse=True)
    history = history[:limit]
    everyone = sorted({p for h in history for p in h["players"]})
    names, bots = await c.player_names(everyone), await c.accounts.bots(everyone)
    return {
        "player_id": player_id,
        "ratings": await c.boards.ratings_of(list(GAMES), player_id),
        "games": [entry(h, names, bots) for h in history],
    }


def entry(h: dict[str, Any], names: dict[str, str], bots: set[str]) -> dict[str, Any]:
    return {
        "game_id": h["game_id"],
        "game": h["game"],
        "ended_ms": h["ended_ms"],
        "seat": h["seat"],
        "place": h["places"][h["seat"]],
        "players": [
            {"player_id": p, "name": names.get(p, ""), "place": place, "bot_account": p in bots}
            for p, place in zip(h["players"], h["places"], strict=True)
        ],
        "before": score(h["before"]),
        "after": score(h["after"]),
        "rating_before": shown(score(h["before"])),
        "rating_after": shown(score(h["after"])),
        "replay": f"/v1/games/{h['game_id']}/replay",
    }

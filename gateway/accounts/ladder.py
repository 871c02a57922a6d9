"""The bot ladder people climb (docs/bots.md): a game's bot levels, weakest first; a
player climbs a rung by beating its level twice, and plays the next level up from there
(Arimaa's bot ladder). Read off the player's own finished games, nothing stored: a win
counts when the player sat at a table of two against a bot of that level, was not a
practice game (its creator knew the deal), played their own seat to the end (no bot
stood in for them) and won.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from gateway.accounts.awaiting import InPlay, games_in_play
from gateway.games.catalog import BotLevel, bot_levels
from gateway.games.models import GameName
from gateway.http.auth import CallerDep, ClientsDep, player
from gateway.http.openapi import TOKEN_REQUIRED
from gateway.http.problems import problems

router = APIRouter(tags=["accounts"])
BEATEN_AFTER = 2  # wins against a level that climb its rung
PROBLEMS = problems(
    (401, "sign in first (a player's token)"),
    (403, "the token lacks the 'read' scope"),
    (422, "no such game kind"),
)


class Rung(BotLevel):
    wins: int = Field(description="your wins against this level, at a table of two")
    games: int = Field(description="your finished games against it")
    beaten: bool = Field(description=f"beaten {BEATEN_AFTER} times: this rung is climbed")


class Ladder(BaseModel):
    game: str
    rungs: list[Rung] = Field(description="the levels, weakest first")
    climbed: int = Field(description="rungs climbed from the bottom, in order")
    next: str | None = Field(description="the level to play next; none once at the top")


def against(g: InPlay, game: str) -> str | None:
    """The bot level a finished game was a fair duel against, else None."""
    s = g.summary  # one the projection has not stored yet has no seats: not finished
    if s["game"] != game or not g.over or s.get("practice") or len(s.get("seats", [])) != 2:
        return None
    other = s["seats"][1 - g.seat]
    if other.get("kind") != "bot" or g.seat in s["status"].get("stand_ins", []):
        return None
    return str(other.get("bot_level") or "")


def climb(levels: Sequence[BotLevel], games: Sequence[InPlay], game: str) -> dict[str, Any]:
    """The ladder as the player stands on it."""
    default = levels[0].level if levels else ""
    played: dict[str, list[bool]] = {}
    for g in games:
        level = against(g, game)
        if level is not None:
            won = g.seat in g.summary["status"].get("winners", [])
            played.setdefault(level or default, []).append(won)
    rungs = []
    for lv in levels:
        results = played.get(lv.level, [])
        wins = sum(results)
        rungs.append(
            Rung(**lv.model_dump(), wins=wins, games=len(results), beaten=wins >= BEATEN_AFTER)
        )
    climbed = next((i for i, r in enumerate(rungs) if not r.beaten), len(rungs))
    return {
        "game": game,
        "rungs": rungs,
        "climbed": climbed,
        "next": rungs[climbed].level if climbed < len(rungs) else None,
    }


@router.get(
    "/v1/accounts/me/ladder/{game}",
    response_model=Ladder,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def my_ladder(game: GameName, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Where you stand on a game's bot ladder: each level (weakest first) with its
    rating, your wins against it, whether you have beaten it twice, and the level to play
    next. Play it with POST /v1/games: you and one bot seat of that level."""
    me = player(who, "read")
    games = await games_in_play(c, me.player_id, c.settings.my_games_scan)
    return climb(await bot_levels(c, game), games, game)

"""What games this server plays, as a client needs to offer them: names, titles, table
sizes, bot levels, option defaults and the event types a live stream may carry."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from redis.exceptions import RedisError

from gateway.clients import Clients
from gateway.http.auth import ClientsDep
from services.games import GAMES, command_models
from services.kernel.how_to_play import Block
from services.ratings.rules import BOT_PREFIX

router = APIRouter(prefix="/v1/game-types", tags=["games"])


class BotLevel(BaseModel):
    level: str = Field(description="the value of a seat's `bot_level`")
    name: str = Field(description="its name for people, e.g. Beginner, Intermediate, Master")
    about: str = Field(description="what it does, in a few words")
    rating: int | None = Field(None, description="its rating as players see ratings")
    provisional: bool = Field(True, description="too few rated games to trust the rating yet")


class GameType(BaseModel):
    name: str = Field(description="the value of `game` when creating one")
    title: str
    how_to_play: list[Block] = Field(
        description="the rules for players, in blocks: `h` a heading, `p` a paragraph "
        "(`**strong**`, `*emphasis*`), `ol`/`ul` lists, `figure` a captioned picture of "
        "card groups, tiles or preformatted text"
    )
    players: tuple[int, int] = Field(description="least and most seats at a table")
    bots: list[str] = Field(description="bot levels, the default first")
    bot_levels: list[BotLevel] = Field(
        description="the bot levels for people, weakest first: a name (Beginner to "
        "Master), what the level does and its rating where it has played rated games"
    )
    events: list[str] = Field(description="event types its streams carry")
    commands: list[str] = Field(description="command types (`type` of a command body)")
    options: dict[str, Any] = Field(
        description="the options as a JSON Schema: a title per option, `x-labels` (a label "
        "per value), `x-when` (an option that applies only when another has one of some "
        "values), `x-seat` (the value is a seat number), `x-form: false` (not for a form); "
        "`x-seats` says which seats a table takes: `default` {min, max, kinds, max_option?}"
        " and, where an option's value changes that, {option: {value: {...}}}"
    )


def _command_types(name: str) -> list[str]:
    game = GAMES[name]
    models = command_models([game])
    return sorted({t for m in models for t in _literal_types(m)})


def _literal_types(model: Any) -> list[str]:
    annotation = model.model_fields["type"].annotation
    return [str(a) for a in getattr(annotation, "__args__", ())]


def _options_schema(found: Any) -> dict[str, Any]:
    schema = found() if callable(found) else found
    return dict(schema)


async def bot_levels(c: Clients, name: str) -> list[BotLevel]:
    """A game's levels with their names and ratings, weakest first (as rated, else in
    the order the game lists them)."""
    game = GAMES[name]
    try:
        rated = await c.boards.ratings_many(name, [BOT_PREFIX + b for b in game.bots])
    except RedisError:  # the ratings are extra: the catalogue answers without them
        rated = {}
    out = []
    for level in game.bots:
        person, about = game.bot_names.get(level, (level.capitalize(), ""))
        r = rated.get(BOT_PREFIX + level)
        out.append(
            BotLevel(
                level=level,
                name=person,
                about=about,
                rating=r["rating"] if r else None,
                provisional=r["provisional"] if r else True,
            )
        )
    return out


@router.get("", response_model=list[GameType])
async def game_types(c: ClientsDep) -> list[GameType]:
    """Every game this server plays."""
    out = []
    for name, game in GAMES.items():
        levels = [game.default_bot, *(b for b in game.bots if b != game.default_bot)]
        out.append(
            GameType(
                name=name,
                title=game.title or name,
                how_to_play=list(game.how_to_play),
                players=game.players,
                bots=[b for b in levels if b],
                bot_levels=await bot_levels(c, name),
                events=list(game.events or ()),
                commands=_command_types(name),
                options=_options_schema(game.options_schema),
            )
        )
    return out

"""Vacation (docs/turn-based.md): a player's days off a year, which stop the clocks of all
their turn-based games in play until the vacation ends (each table says so to the
others). Days taken are counted per calendar year in ``<prefix>:vacation:<player>``."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from gateway.accounts.awaiting import games_in_play
from gateway.clients import Clients
from gateway.http.auth import CallerDep, ClientsDep, player
from gateway.http.openapi import TOKEN_REQUIRED
from gateway.http.problems import Problem, problems
from services.accounts.vacations import vacation_at, vacation_key
from services.kernel.commands import Strict

router = APIRouter(tags=["accounts"])
DAY_MS = 86_400_000
PROBLEMS = problems(
    (401, "no, a wrong or a revoked token"),
    (403, "the token lacks the play scope"),
    (422, "no_vacation_left: more days than this year has left"),
)


class VacationIn(Strict):
    days: int = Field(ge=1, le=365, description="whole days from now")


class VacationOut(BaseModel):
    days_per_year: int
    used_this_year: int
    until_ms: int = Field(description="on vacation until then (Unix ms); 0: not")
    games: int = Field(description="turn-based games whose clock it stopped (or started)")


def _key(c: Clients, player_id: str) -> str:
    return vacation_key(c.settings.store.key_prefix, player_id)


def _year() -> str:
    return time.strftime("%Y", time.gmtime())


async def _state(c: Clients, player_id: str, games: int = 0) -> dict[str, Any]:
    raw = await c.store.redis.hmget(_key(c, player_id), [_year(), "until"])
    until = int(raw[1] or 0)
    return {
        "days_per_year": c.settings.vacation_days,
        "used_this_year": int(raw[0] or 0),
        "until_ms": until if until > time.time() * 1000 else 0,
        "games": games,
    }


async def _tell_tables(c: Clients, player_id: str, until_ms: int) -> int:
    """Each turn-based game in play of the player: its clock waits until ``until_ms``."""
    told = 0
    for g in await games_in_play(c, player_id, c.settings.my_games_scan):
        if not g.turn_based or g.over:
            continue
        engine = await c.engine_for(g.game_id)
        told += await vacation_at(engine, g.game_id, g.seat, player_id, until_ms)
    return told


@router.get(
    "/v1/accounts/me/vacation",
    response_model=VacationOut,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def vacation(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Your vacation days this year, and the vacation you are on, if any."""
    return await _state(c, player(who, "read").player_id)


@router.post(
    "/v1/accounts/me/vacation",
    response_model=VacationOut,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def take_vacation(body: VacationIn, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Stop the clocks of all your turn-based games in play for ``days`` from now: the
    others at each table see until when. Days are counted against this year's
    RAFFE_VACATION_DAYS."""
    me = player(who, "play")
    key, year = _key(c, me.player_id), _year()
    used = int(await c.store.redis.hincrby(key, year, body.days))
    if used > c.settings.vacation_days:
        await c.store.redis.hincrby(key, year, -body.days)
        left = c.settings.vacation_days - used + body.days
        raise Problem(422, "no_vacation_left", f"{left} vacation days are left this year")
    until = int(time.time() * 1000) + body.days * DAY_MS
    await c.store.redis.hset(key, "until", until)
    return await _state(c, me.player_id, await _tell_tables(c, me.player_id, until))


@router.delete(
    "/v1/accounts/me/vacation",
    response_model=VacationOut,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def end_vacation(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Back early: your clocks run again from now; the whole days not used come back."""
    me = player(who, "play")
    key, now = _key(c, me.player_id), int(time.time() * 1000)
    until = int(await c.store.redis.hget(key, "until") or 0)
    if until > now:
        await c.store.redis.hincrby(key, _year(), -((until - now) // DAY_MS))
    await c.store.redis.hset(key, "until", 0)
    return await _state(c, me.player_id, await _tell_tables(c, me.player_id, now))

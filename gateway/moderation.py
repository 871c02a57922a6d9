"""Reports and moderation (#54 item 5, docs/social.md).

A player reports another (a reason, a few words, and where: a table), at most once a day
per player reported; the server attaches the reported player's chat lines at that table
and the game's version. Reports gather per reported player; moderators (granted by an
operator: ``python -m gateway.accounts.admin moderator``) see them as a queue, most
reported first, and act: warn, mute, shadow-mute, suspend rated play, ban, or clear.
Each action is a ``Moderated`` event in the player's account stream with the moderator
and the reason; the player sees the action and its reason. A ban ends every session and
API token of the player on every gateway.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal, cast

import orjson
from fastapi import APIRouter
from pydantic import BaseModel, Field

from gateway.accounts.routes import PlayerId
from gateway.chat import chat_key
from gateway.clients import Clients
from gateway.http.auth import CallerDep, ClientsDep, player
from gateway.http.openapi import TOKEN_REQUIRED
from gateway.http.problems import Problem, problems
from services.accounts import sealing, streams
from services.core.eventstore.keys import GAME_ID_CHARS
from services.kernel.commands import Strict

router = APIRouter(tags=["moderation"])
DAY_S = 86_400
QUEUE_MOST = 100
PROBLEMS = problems(
    (401, "sign in first (a player's token)"),
    (403, "not_moderator: only moderators see the queue and act"),
    (404, "no_player"),
    (422, "invalid request (self, bad_action, bad_reason)"),
    (429, "already_reported: once a day per player (Retry-After)"),
)
Action = Literal["warn", "mute", "shadow_mute", "suspend_rated", "ban", "clear"]


class ReportIn(Strict):
    player_id: str
    reason: Literal["abuse", "cheating", "spam", "name", "other"]
    text: str = Field("", max_length=500, description="a few words, optional")
    game_id: Annotated[str, Field(pattern=f"^{GAME_ID_CHARS}$")] | None = None


class Reported(BaseModel):
    report_id: str


class ActionIn(Strict):
    action: Action
    reason: str = Field(min_length=1, max_length=500, description="the player is shown it")
    days: int = Field(0, ge=0, le=3650, description="mute and suspension: 0 for good")


class ModerationAction(BaseModel):
    action: Action
    reason: str
    until_ms: int = Field(description="0: for good (or at once, a warning)")
    at_ms: int


class Case(BaseModel):
    player_id: str
    name: str
    open_reports: int
    reports: list[dict[str, Any]] = Field(description="reason, text, reporter, game, chat")
    actions: list[ModerationAction] = Field(description="earlier actions on the player")


class Queue(BaseModel):
    cases: list[Case] = Field(description="the most reported first")


class MyModeration(BaseModel):
    actions: list[ModerationAction]
    muted: bool
    rated_play_suspended: bool


def _keys(c: Clients) -> tuple[str, str]:
    prefix = c.settings.store.key_prefix
    return f"{prefix}:cases", f"{prefix}:case:"


def _actions(moderated: tuple[tuple[str, str, str, int, int], ...]) -> list[dict[str, Any]]:
    return [
        {"action": a, "reason": r, "until_ms": until, "at_ms": at}
        for a, _, r, until, at in moderated
    ]


async def _lines(c: Clients, game_id: str, subject: str) -> list[str]:
    """The reported player's chat lines at the table, newest last (at most 10)."""
    key = await streams.sealing_key(c.store, subject)
    lines = []
    for audience in ("players", "spectators"):
        raw = cast(
            list[tuple[bytes, dict[bytes, bytes]]],
            await c.store.redis.xrevrange(chat_key(c, game_id, audience), count=200),
        )
        for _, f in raw:
            if f.get(b"player", b"").decode() == subject:
                text = sealing.open_sealed(key, subject, f[b"text"].decode())
                if text is not None:
                    lines.append(text)
    return list(reversed(lines[:10]))


@router.post(
    "/v1/reports",
    status_code=201,
    response_model=Reported,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def report(body: ReportIn, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Report a player to the moderators: a reason, a few words, and the table where it
    happened (the server attaches their chat lines there and the game's version)."""
    me = player(who, "play")
    if body.player_id == me.player_id:
        raise Problem(422, "self", "you cannot report yourself")
    if await c.accounts.directory_entry(body.player_id) is None:
        raise Problem(404, "no_player", f"no player {body.player_id}")
    prefix = c.settings.store.key_prefix
    once = f"{prefix}:reported:{me.player_id}:{body.player_id}"
    if not await c.store.redis.set(once, 1, nx=True, ex=DAY_S):
        left = await c.store.redis.ttl(once)
        raise Problem(
            429, "already_reported", "one report a day per player", retry_after=max(1, left)
        )
    where: dict[str, Any] = {}
    if body.game_id:
        version = await c.store.version(body.game_id)
        lines = await _lines(c, body.game_id, body.player_id)
        where = {"game_id": body.game_id, "version": version, "chat": lines}
    report_id = f"{int(time.time() * 1000)}-{me.player_id[-6:]}"
    entry = {
        "report_id": report_id,
        "reporter": me.player_id,
        "reason": body.reason,
        "text": body.text,
        "time_ms": int(time.time() * 1000),
        **where,
    }
    cases, case = _keys(c)
    pipe = c.store.redis.pipeline(transaction=False)
    pipe.rpush(case + body.player_id, orjson.dumps(entry))
    pipe.zincrby(cases, 1, body.player_id)
    await pipe.execute()
    return {"report_id": report_id}


async def _moderator(c: Clients, who: Any) -> str:
    me = player(who, "read")
    if not (await c.accounts.load(me.player_id)).moderator:
        raise Problem(403, "not_moderator", "only moderators see the queue and act")
    return me.player_id


@router.get(
    "/v1/moderation/queue",
    response_model=Queue,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def queue(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """The players with open reports, the most reported first, with each report and
    their earlier moderation (moderators only)."""
    await _moderator(c, who)
    cases, case = _keys(c)
    found = cast(
        list[tuple[bytes, float]],
        await c.store.redis.zrevrange(cases, 0, QUEUE_MOST - 1, withscores=True),
    )
    subjects = [s.decode() for s, _ in found]
    names = await c.accounts.names(subjects)
    out = []
    for subject, (_, count) in zip(subjects, found, strict=True):
        raw = cast(list[bytes], await c.store.redis.lrange(case + subject, 0, -1))
        state = await c.accounts.load(subject)
        out.append(
            {
                "player_id": subject,
                "name": names.get(subject, ""),
                "open_reports": int(count),
                "reports": [orjson.loads(r) for r in raw],
                "actions": _actions(state.moderated),
            }
        )
    return {"cases": out}


@router.post(
    "/v1/moderation/players/{player_id}",
    response_model=ModerationAction,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def act(player_id: PlayerId, body: ActionIn, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Act on a player (moderators only), with the reason they are shown; their open
    reports are closed. ``days`` bounds a mute or a suspension (0: for good)."""
    moderator = await _moderator(c, who)
    until = int(time.time() * 1000) + body.days * DAY_S * 1000 if body.days else 0
    state = await c.accounts.moderate(moderator, player_id, body.action, body.reason, until)
    cases, case = _keys(c)
    pipe = c.store.redis.pipeline(transaction=False)
    pipe.zrem(cases, player_id)
    pipe.delete(case + player_id)
    await pipe.execute()
    return _actions(state.moderated)[-1]


@router.get(
    "/v1/accounts/me/moderation",
    response_model=MyModeration,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def mine(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """What moderators did about your account, and why; whether a mute or a suspension
    of rated play holds now."""
    me = player(who, "read")
    state = await c.accounts.load(me.player_id)
    now = int(time.time() * 1000)
    return {
        "actions": _actions(state.moderated),
        "muted": state.held("mute", now) is not None,
        "rated_play_suspended": state.held("suspend_rated", now) is not None,
    }

"""Challenges (#54 item 2, docs/social.md): a player invites another to a new table (the
game, its seats and options, the speed in its options); the invitee accepts (the table
is made with both seated) or declines; the challenger may take it back; it expires after
RAFFE_CHALLENGE_TTL_S. Each challenge is a stream of its own (aggregate ``challenge``),
each player's challenges an index beside it. A block, either way, refuses the challenge.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from gateway.accounts import bot_limits
from gateway.accounts.awaiting import check_turn_based_cap
from gateway.clients import Clients
from gateway.games.models import GameName
from gateway.games.routes import seated
from gateway.http.auth import CallerDep, ClientsDep, player
from gateway.http.openapi import TOKEN_REQUIRED
from gateway.http.problems import Problem, problems
from services.accounts.social import ONLINE_S, online_key
from services.challenges import rules, streams
from services.challenges.rules import Challenge
from services.core.ids import random_uuid
from services.games import GAMES
from services.kernel.commands import Strict
from services.kernel.errors import RaffeError
from services.kernel.game import SeatSpec

router = APIRouter(prefix="/v1/challenges", tags=["challenges"])
ChallengeId = Annotated[str, Path(pattern=r"^ch[0-9a-f]{24}$", description="a challenge's id")]
PROBLEMS = problems(
    (401, "sign in first (a player's token)"),
    (403, "not_accepted: that player takes no challenge from you"),
    (404, "no_player or no_challenge"),
    (409, "challenge_accepted, _declined, _cancelled or _expired: it is not open"),
    (422, "invalid request, bad options (code in the body), or self"),
    (429, "turn_based_cap: as many turn-based games as allowed"),
)


class ChallengeIn(Strict):
    to: str = Field(description="the player challenged")
    game: GameName
    seats: int = Field(2, ge=2, le=8, description="the two of you, bots in the rest")
    options: dict[str, Any] = Field(
        default_factory=dict, description='the game\'s options, e.g. {"speed": "turn_based"}'
    )


class DeclineIn(Strict):
    reason: Literal["generic", "later", "not_this_game", "no_bots"] = "generic"


class ChallengeOut(BaseModel):
    challenge_id: str
    challenger: str
    challenger_name: str
    invitee: str
    invitee_name: str
    bot_accounts: list[str] = Field(
        default_factory=list, description="which of the two are programs (docs/bot-api.md)"
    )
    game: str
    seats: int
    options: dict[str, Any]
    state: Literal["open", "accepted", "declined", "cancelled", "expired"]
    reason: str = Field("", description="declined: why (generic, later, not_this_game...)")
    game_id: str = Field("", description="accepted: the table, both of you seated")
    created_ms: int
    expires_ms: int


class Challenges(BaseModel):
    incoming: list[ChallengeOut]
    outgoing: list[ChallengeOut]


def _now() -> int:
    return int(time.time() * 1000)


def _new_id() -> str:
    return "ch" + random_uuid().replace("-", "")[:24]


async def shown_challenge(c: Clients, challenge_id: str, ch: Challenge) -> dict[str, Any]:
    entries = await c.accounts.entries([ch.challenger, ch.invitee])
    names = {p: e["name"] for p, e in entries.items()}
    return {
        "challenge_id": challenge_id,
        "challenger": ch.challenger,
        "challenger_name": names.get(ch.challenger, ""),
        "invitee": ch.invitee,
        "invitee_name": names.get(ch.invitee, ""),
        "bot_accounts": sorted(p for p, e in entries.items() if e.get("bot")),
        "game": ch.game,
        "seats": ch.seats,
        "options": dict(ch.options),
        "state": ch.shown_state(_now()),
        "reason": ch.reason,
        "game_id": ch.game_id,
        "created_ms": ch.created_ms,
        "expires_ms": ch.expires_ms,
    }


def _problem(error: RaffeError) -> Problem:
    """A rule's refusal as the answer: not open 409, not yours 403, none 404."""
    status = 409 if error.code.startswith("challenge_") else 403
    return Problem(404 if error.code == "no_challenge" else status, error.code, str(error))


async def _decided(c: Clients, challenge_id: str, decision: Any) -> Challenge:
    """A decision on the challenge, its refusal as a problem answer."""
    try:
        return await streams.decide(c.store, challenge_id, decision)
    except RaffeError as error:
        raise _problem(error) from None


@router.post(
    "",
    status_code=201,
    response_model=ChallengeOut,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def challenge(body: ChallengeIn, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Challenge a player to a new table. Its options are checked now, as a create
    checks them; it stays open until RAFFE_CHALLENGE_TTL_S has passed."""
    me = player(who, "play")
    if body.to == me.player_id:
        raise Problem(422, "self", "you cannot challenge yourself")
    if await c.accounts.directory_entry(body.to) is None:
        raise Problem(404, "no_player", f"no player {body.to}")
    if await _apart(c, me.player_id, body.to):
        raise Problem(403, "not_accepted", "that player takes no challenge from you")
    programs = await c.accounts.bots([me.player_id, body.to])
    cap = c.settings.bot_games_per_day
    await bot_limits.check_challenge(c.store, cap, programs, me.player_id, body.to)
    seats = _seats(body.seats, me.player_id, body.to)
    try:
        GAMES[body.game].options(body.options, seats)
    except RaffeError as error:
        raise Problem(422, error.code, str(error)) from None
    challenge_id, expires = _new_id(), _now() + c.settings.challenge_ttl_s * 1000

    def issue(state: Challenge) -> list[Any]:
        options = dict(body.options)
        return rules.issue(state, me.player_id, body.to, body.game, body.seats, options, expires)

    ch = await _decided(c, challenge_id, issue)
    await streams.listed(c.store, ch, challenge_id)
    return await shown_challenge(c, challenge_id, ch)


@router.get("", response_model=Challenges, responses=PROBLEMS, openapi_extra=TOKEN_REQUIRED)
async def my_challenges(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Your challenges, sent and received, open ones and those answered or expired in
    the last day, the latest to expire first. Reading them marks you online for a
    minute (your friends see it): the web client's lobby reads them every few seconds."""
    me = player(who, "read")
    # The lobby reads this every few seconds while it is open: the player is online.
    await c.store.redis.set(online_key(c.settings.store.key_prefix, me.player_id), 1, ex=ONLINE_S)
    incoming: list[dict[str, Any]] = []
    outgoing: list[dict[str, Any]] = []
    for challenge_id in await streams.of_player(c.store, me.player_id):
        ch = await streams.load(c.store, challenge_id)
        if not ch.state:
            continue
        shown = await shown_challenge(c, challenge_id, ch)
        (incoming if ch.invitee == me.player_id else outgoing).append(shown)
    return {"incoming": incoming, "outgoing": outgoing}


@router.post(
    "/{challenge_id}/accept",
    response_model=ChallengeOut,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def accept(challenge_id: ChallengeId, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Take the challenge: the table is made with the challenger at seat 0, you at seat
    1 and bots in the rest; both of you play it with your own tokens (``game_id``)."""
    me = player(who, "play")
    ch = await streams.load(c.store, challenge_id)
    try:  # refused before a table is made for it
        rules.accept(ch, me.player_id, "", _now())
    except RaffeError as error:
        raise _problem(error) from None
    if await _apart(c, ch.challenger, ch.invitee):  # a block since it was sent
        raise Problem(403, "not_accepted", "one of you blocks the other")
    options, players = dict(ch.options), {0: ch.challenger, 1: ch.invitee}
    if options.get("speed") == "turn_based":
        await check_turn_based_cap(c, list(players.values()))
    programs = sorted(await c.accounts.bots(list(players.values())))
    if len(programs) > 1:
        await bot_limits.check_cap(c.store, c.settings.bot_games_per_day, programs)
    game_id = f"{challenge_id}-g"  # one table a challenge, however often it is accepted
    engine, seats = c.engines[ch.game], _seats(ch.seats, ch.challenger, ch.invitee)
    await engine.create(seats, options, game_id=game_id, command_id=f"create:{game_id}")
    kinds = [s.kind for s in seats]
    await seated(c, engine, game_id, kinds, players, options, others=frozenset(players))
    await bot_limits.count_game(c.store, programs)
    after = await _decided(
        c, challenge_id, lambda s: rules.accept(s, me.player_id, game_id, _now())
    )
    return await shown_challenge(c, challenge_id, after)


@router.post(
    "/{challenge_id}/decline",
    response_model=ChallengeOut,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def decline(
    challenge_id: ChallengeId, body: DeclineIn, c: ClientsDep, who: CallerDep
) -> dict[str, Any]:
    """Say no (with a reason the challenger sees)."""
    me = player(who, "play")
    ch = await _decided(
        c, challenge_id, lambda s: rules.decline(s, me.player_id, body.reason, _now())
    )
    return await shown_challenge(c, challenge_id, ch)


@router.delete(
    "/{challenge_id}", response_model=ChallengeOut, responses=PROBLEMS, openapi_extra=TOKEN_REQUIRED
)
async def cancel(challenge_id: ChallengeId, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Take your challenge back while it is open."""
    me = player(who, "play")
    ch = await _decided(c, challenge_id, lambda s: rules.cancel(s, me.player_id, _now()))
    return await shown_challenge(c, challenge_id, ch)


def _seats(count: int, challenger: str, invitee: str) -> list[SeatSpec]:
    bots = [SeatSpec("bot") for _ in range(count - 2)]
    return [SeatSpec("human", player=challenger), SeatSpec("human", player=invitee), *bots]


async def _apart(c: Clients, a: str, b: str) -> bool:
    """Whether either blocks the other."""
    return bool(await c.accounts.blocked_by(a, [b]) or await c.accounts.blocked_by(b, [a]))

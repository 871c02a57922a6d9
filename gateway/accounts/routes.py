"""Accounts, sessions and players (docs/accounts.md)."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response

from gateway.accounts.awaiting import awaiting, games_in_play, turn_based_held
from gateway.accounts.models import (
    Account,
    Awaiting,
    BotsWelcome,
    ClaimName,
    EraseAccount,
    MyGames,
    NewToken,
    Player,
    Register,
    SignedIn,
    SignIn,
    TokenIssued,
)
from gateway.accounts.service import PLAYER_ID_PATTERN, Signed, account_json
from gateway.http.auth import CallerDep, ClientsDep, player
from gateway.http.openapi import TOKEN_REQUIRED
from gateway.http.problems import Problem, problems

router = APIRouter(tags=["accounts"])
PlayerId = Annotated[str, Path(pattern=PLAYER_ID_PATTERN, description="a player's id")]
PROBLEMS = problems(
    (401, "no, a wrong or a revoked token; or a name and password that do not match"),
    (403, "the token lacks the scope this needs"),
    (404, "no such player"),
    (409, "the name (or one that looks like it) is taken"),
    (422, "invalid request (code in the body)"),
    (429, "too many registrations or sign-in attempts (Retry-After)"),
)


def signed_in(s: Signed) -> SignedIn:
    return SignedIn(
        player_id=s.player_id,
        name=s.name,
        guest=s.account.guest,
        token=s.token,
        session_id=s.session.session_id,
        expires_ms=s.session.expires_ms,
        bot=s.account.bot,
    )


@router.post("/v1/accounts", status_code=201, response_model=SignedIn, responses=PROBLEMS)
async def register(body: Register, c: ClientsDep, request: Request) -> SignedIn:
    """A new account, signed in: with a name and a password, or as a guest (no
    password) who may claim a name later. The answer's token is this session's bearer
    token (shown once)."""
    address = request.state.client_address
    return signed_in(await c.accounts.register(body.name, body.password, address))


@router.post("/v1/sessions", status_code=201, response_model=SignedIn, responses=PROBLEMS)
async def sign_in(body: SignIn, c: ClientsDep, request: Request) -> SignedIn:
    """Sign in: a new session (its bearer token acts for every seat you hold, from any
    device). A wrong name or password answers 401 ``bad_credentials`` either way."""
    address = request.state.client_address
    label = body.label or request.headers.get("user-agent", "")[:64]
    return signed_in(await c.accounts.sign_in(body.name, body.password, address, label))


@router.delete(
    "/v1/sessions/current",
    status_code=204,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def sign_out(c: ClientsDep, who: CallerDep) -> Response:
    """Sign out: the token you send stops working at once, on every gateway (an API
    token sent here is revoked)."""
    me = player(who, "read")
    session = (await c.accounts.load(me.player_id)).session(me.session_id)
    if session is not None:
        await c.accounts.close(me, me.session_id, session.kind)
    return Response(status_code=204)


@router.delete("/v1/sessions", status_code=204, responses=PROBLEMS, openapi_extra=TOKEN_REQUIRED)
async def sign_out_everywhere(c: ClientsDep, who: CallerDep) -> Response:
    """Close every sign-in session of your account, this one too (personal API tokens
    stay: revoke each on its own)."""
    await c.accounts.sign_out_everywhere(player(who, "account"))
    return Response(status_code=204)


@router.delete(
    "/v1/accounts/me/sessions/{session_id}",
    status_code=204,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def close_session(
    session_id: Annotated[str, Path(pattern="^[0-9a-f]{16}$")], c: ClientsDep, who: CallerDep
) -> Response:
    """Sign out one of your sessions (another device, say)."""
    await c.accounts.close(player(who, "account"), session_id, "session")
    return Response(status_code=204)


@router.get(
    "/v1/accounts/me", response_model=Account, responses=PROBLEMS, openapi_extra=TOKEN_REQUIRED
)
async def me(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Your account: name, open sessions and personal API tokens."""
    me = player(who, "read")
    state = await c.accounts.load(me.player_id)
    name = await c.accounts.opened(me.player_id, state.name) or ""
    return account_json(state, me.player_id, name, int(time.time() * 1000))


@router.post(
    "/v1/accounts/me/claim",
    response_model=Account,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def claim_name(body: ClaimName, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """A guest takes a name and a password: the same account (its games, its seats),
    now one you can sign in to from anywhere."""
    me = player(who, "account")
    state = await c.accounts.claim(me, body.name, body.password)
    name = await c.accounts.opened(me.player_id, state.name) or ""
    return account_json(state, me.player_id, name, int(time.time() * 1000))


@router.post(
    "/v1/accounts/me/tokens",
    status_code=201,
    response_model=TokenIssued,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def new_token(body: NewToken, c: ClientsDep, who: CallerDep) -> TokenIssued:
    """A personal API token for a script or an external bot: ``play`` acts at your
    seats and creates and joins games; ``read`` reads your account and games. It lives
    until you revoke it; it never manages the account."""
    scopes = sorted(set(body.scopes))
    token, state = await c.accounts.new_token(player(who, "account"), body.label, list(scopes))
    issued = state.sessions[-1]
    return TokenIssued(
        id=issued.session_id, label=issued.label, scopes=list(issued.scopes), token=token
    )


@router.post(
    "/v1/accounts/me/bot",
    status_code=201,
    response_model=SignedIn,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def become_bot(c: ClientsDep, who: CallerDep) -> SignedIn:
    """Make this account a program's (docs/bot-api.md): for good, and only before its
    first game (422 ``has_played``; a guest: 422 ``guest``). It is marked as a bot
    wherever it is shown, its requests are limited as a bot's, and it meets people only
    where they welcome bots. Every sign-in and token of it ends; the answer carries a
    new sign-in whose token has the ``bot`` scope (so will every token made later)."""
    return signed_in(await c.accounts.become_bot(player(who, "account")))


@router.put(
    "/v1/accounts/me/bots-welcome",
    response_model=BotsWelcome,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def welcome_bots(body: BotsWelcome, c: ClientsDep, who: CallerDep) -> BotsWelcome:
    """Whether programs (bot accounts) may sit at your quick-play tables and challenge
    you. Both are off until you turn them on; a person you challenge yourself, bot or
    not, is your choice either way."""
    me = player(who, "account")
    state = await c.accounts.welcome_bots(me.player_id, body.quick_play, body.challenges)
    return BotsWelcome(quick_play=state.bots_in_quick_play, challenges=state.bots_in_challenges)


@router.delete(
    "/v1/accounts/me/tokens/{token_id}",
    status_code=204,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def revoke_token(
    token_id: Annotated[str, Path(pattern="^[0-9a-f]{16}$")], c: ClientsDep, who: CallerDep
) -> Response:
    """Revoke a personal API token: it stops working at once, on every gateway."""
    await c.accounts.close(player(who, "account"), token_id, "token")
    return Response(status_code=204)


@router.post(
    "/v1/accounts/me/erase", status_code=204, responses=PROBLEMS, openapi_extra=TOKEN_REQUIRED
)
async def erase(body: EraseAccount, c: ClientsDep, who: CallerDep) -> Response:
    """Erase your account (send its password; a guest sends none): your name leaves
    every view, lobby and replay, your tokens stop working, and the name is free
    again. Games you played keep an anonymous player in your seat (docs/accounts.md)."""
    await c.accounts.erase(player(who, "account"), body.password)
    return Response(status_code=204)


@router.get(
    "/v1/accounts/me/games",
    response_model=MyGames,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def my_games(
    c: ClientsDep, who: CallerDep, limit: Annotated[int, Query(ge=1, le=200)] = 50
) -> dict[str, Any]:
    """The games you hold a seat in, newest first, live and finished, with whether it
    is your turn."""
    me = player(who, "read")
    out = []
    for g in await games_in_play(c, me.player_id, limit):
        status = g.summary["status"]
        out.append(
            {
                "game_id": g.game_id,
                "game": g.summary["game"],
                "seat": g.seat,
                "over": g.over,
                "to_act": status["to_act"],
                "your_turn": g.your_turn,
                "created_ms": g.summary["created_ms"],
                "updated_ms": g.summary["updated_ms"],
            }
        )
    return {"games": out}


@router.get(
    "/v1/accounts/me/awaiting",
    response_model=Awaiting,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def my_turns(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """The games awaiting your move, live and turn-based, the soonest to run out of time
    first (games with no clock last); and how many turn-based games you play, against
    the most this server lets one player hold at once."""
    me = player(who, "read")
    games = await games_in_play(c, me.player_id, c.settings.my_games_scan)
    return {
        "games": awaiting(games),
        "turn_based_games": turn_based_held(games),
        "turn_based_cap": c.settings.turn_based_cap,
    }


@router.get("/v1/players/{player_id}", response_model=Player, responses=PROBLEMS)
async def player_page(player_id: PlayerId, c: ClientsDep) -> dict[str, Any]:
    """A player's public profile."""
    entry = await c.accounts.directory_entry(player_id)
    if entry is None:
        raise Problem(404, "no_player", f"no player {player_id}")
    return {"player_id": player_id, **entry}

"""Who is calling: a bearer seat token, a player's token (a sign-in session or a personal
API token: gateway.accounts.service), or nobody (a spectator). A player's token acts at the
seat that player holds in the game the path names."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from gateway.accounts.bot_limits import take_request
from gateway.accounts.tokens import Caller, TokenRotated
from gateway.clients import Clients
from gateway.http.problems import Problem
from services.accounts.rules import BOT_SCOPE


async def clients(request: Request) -> Clients:
    """Async on purpose: FastAPI runs a plain ``def`` dependency in a worker thread."""
    found: Clients = request.app.state.clients
    return found


ClientsDep = Annotated[Clients, Depends(clients)]  # a route's parameter: the clients


async def caller(request: Request) -> Caller:
    game_id = request.path_params.get("game_id", "")
    return await bearer(
        request.app.state.clients, request.headers.get("authorization", ""), game_id=game_id
    )


async def bearer(c: Clients, header: str, rotating: bool = False, game_id: str = "") -> Caller:
    """The caller an Authorization header names: a seat, a player (seated at their seat
    of ``game_id``, if they hold one), or a spectator without one."""
    if not header:
        return Caller()
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise Problem(401, "bad_token", "send a seat token as 'Authorization: Bearer <token>'")
    try:
        found: Caller | None = await c.tokens.resolve(token.strip())
    except TokenRotated:
        if rotating:
            raise Problem(
                409, "token_rotated", "this token was rotated already: use the new one"
            ) from None
        raise Problem(401, "token_rotated", "this token was rotated: use the new one") from None
    if found is None:
        raise Problem(401, "bad_token", "unknown, expired or revoked token")
    if BOT_SCOPE in found.scopes:  # a bot account's (docs/bot-api.md)
        await take_request(c.store, c.settings.bot_requests_per_minute, found.player_id)
    return await c.tokens.in_game(found, game_id)


async def rotating_caller(request: Request) -> Caller:
    """The caller of a rotation: a token rotated already answers 409 (another rotation
    of it won), not 401."""
    authorization = request.headers.get("authorization", "")
    return await bearer(request.app.state.clients, authorization, rotating=True)


def seat_in(game_id: str, who: Caller) -> int:
    """The caller's seat in this game; a token of another game is refused."""
    if who.game_id and who.game_id != game_id:
        raise Problem(403, "wrong_game", "this seat token belongs to another game")
    return who.seat


def acting_seat(game_id: str, who: Caller) -> int:
    if who.player_id and not who.game_id:
        raise Problem(403, "not_seated", "you hold no seat in this game")
    if not who.game_id:
        raise Problem(401, "token_required", "acting needs the seat's bearer token")
    if who.player_id:
        need(who, "play")
    return seat_in(game_id, who)


def need(who: Caller, scope: str) -> None:
    """A player's token must carry ``scope`` (a seat token acts for its seat alone)."""
    if who.player_id and scope not in who.scopes:
        raise Problem(403, "insufficient_scope", f"this token lacks the '{scope}' scope")


def player(who: Caller, scope: str) -> Caller:
    """The caller as a player (a sign-in or API token) with ``scope``, else 401/403."""
    if not who.player_id:
        raise Problem(401, "sign_in_required", "send a player's token: sign in first")
    need(who, scope)
    return who


CallerDep = Annotated[Caller, Depends(caller)]  # a route's parameter: who is calling

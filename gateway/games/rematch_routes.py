"""Play again (docs/fair-table.md): POST /v1/games/{id}/rematch accepts for the caller's
seat; once every player's seat has, the new game starts (same seats and options, a new
seed) and each seat's answer carries its new seat token. GET shows where it stands."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from gateway.clients import Clients
from gateway.games.rematch import Offer
from gateway.games.routes import PROBLEMS, GameId
from gateway.http.auth import CallerDep, ClientsDep, acting_seat, seat_in
from gateway.http.problems import Problem
from services.kernel.game import SPECTATOR, SeatSpec

router = APIRouter(prefix="/v1/games", tags=["games"])


class Rematch(BaseModel):
    game_id: str = Field(description="the finished game")
    accepted: list[int] = Field(description="seats whose players asked to play again")
    waiting_for: list[int] = Field(description="seats still to accept")
    rematch: str | None = Field(None, description="the new game, once everyone accepted")
    token: str | None = Field(
        None, description="your seat token in the new game (a player's own token acts there)"
    )


@router.post("/{game_id}/rematch", response_model=Rematch, responses=PROBLEMS)
async def accept(game_id: GameId, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Ask to play again with the same seats; the game starts when everyone has asked.
    409 ``game_not_over`` while it is played."""
    seat = acting_seat(game_id, who)
    await _finished(c, game_id)
    offer = await c.rematches.offer(game_id, seat)
    if seat not in offer.needed:
        raise Problem(422, "not_a_player", "only a player's seat takes part in a rematch")
    if not offer.game_id and not offer.waiting_for:
        offer = await _start(c, game_id, offer)
    return await _answer(c, game_id, offer, seat)


@router.get("/{game_id}/rematch", response_model=Rematch, responses=PROBLEMS)
async def where(game_id: GameId, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Who asked to play again, and the new game once it started (your token in it, if
    you hold a seat)."""
    seat = seat_in(game_id, who)
    await _finished(c, game_id)
    return await _answer(c, game_id, await c.rematches.offer(game_id), seat)


async def _finished(c: Clients, game_id: str) -> None:
    """409 game_not_over unless the game is over (asked of its engine once: a game over
    stays over)."""
    if c.rematches.known_over(game_id):
        return
    engine = await c.engine_for(game_id)
    _, _, status = await engine.view(game_id, SPECTATOR)
    if not status["over"]:
        raise Problem(409, "game_not_over", "a rematch is offered once the game is over")
    await c.rematches.finished(game_id)


async def _start(c: Clients, game_id: str, offer: Offer) -> Offer:
    players = (await c.tokens.players([game_id]))[game_id]
    seats = [
        SeatSpec(s.kind, s.name, s.bot_level, players.get(i, s.player) if s.kind == "human" else "")
        for i, s in enumerate(offer.seats)
    ]
    new_id = c.rematches.new_game_id(offer)
    engine = c.engines[offer.game]
    await engine.create(
        seats,
        offer.options,
        game_id=new_id,
        command_id="rematch",
        rematch_of=game_id,
        practice=offer.practice,
    )
    bound = {i: s.player for i, s in enumerate(seats) if s.player}
    await c.tokens.register(new_id, [s.kind for s in seats], offer.key, frozenset(bound))
    if bound:
        await c.tokens.bind_players(new_id, bound)
        for index, player_id in bound.items():
            await c.accounts.take_seat(player_id, new_id, index)
    await c.rematches.started(game_id, new_id)
    return replace(offer, game_id=new_id, seats=seats)


async def _answer(c: Clients, game_id: str, offer: Offer, seat: int) -> dict[str, Any]:
    token = None
    if offer.game_id and seat >= 0:
        kinds = [s.kind for s in offer.seats]
        players = (await c.tokens.players([offer.game_id]))[offer.game_id]
        tokens = await c.tokens.register(offer.game_id, kinds, offer.key, frozenset(players))
        token = tokens.get(seat)
    return {
        "game_id": game_id,
        "accepted": offer.accepted,
        "waiting_for": offer.waiting_for,
        "rematch": offer.game_id or None,
        "token": token,
    }

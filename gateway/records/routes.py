"""Portable records of finished games (docs/records.md): one game's as a JSON document,
and every finished game of a kind and time span as JSON Lines, streamed."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Request, Response
from starlette.responses import StreamingResponse

from gateway.clients import Clients
from gateway.games.live_stream import check_hold
from gateway.games.routes import PROBLEMS, GameId
from gateway.http.auth import ClientsDep
from gateway.http.problems import Problem
from gateway.records.models import GameRecord
from services.core.eventstore import StoredEvent
from services.games import GAMES
from services.kernel.game import SPECTATOR
from services.records.document import is_finished, record
from services.records.export import finished

router = APIRouter(tags=["records"])
FAR = 2**62


@router.get("/v1/games/{game_id}/record", response_model=GameRecord, responses=PROBLEMS)
async def game_record(game_id: GameId, c: ClientsDep) -> Response:
    """The finished game as one document: options, seats and players, seed, every
    command with its time and every event. ``raffe verify FILE`` re-plays it offline.
    409 ``game_not_over`` while it is played; 404 ``unknown_game`` once retention has
    taken it (RAFFE_ARCHIVE_TTL_S)."""
    game = GAMES.get(await c.game_type(game_id))
    if game is None:  # a tournament's stream: it has standings, not a game's record
        raise Problem(404, "unknown_game", f"no game {game_id}: a tournament has no record")
    await check_hold(c, game_id, SPECTATOR)
    stored = await c.store.read_game(game_id)
    if not stored:  # gone whole (the gateway may still know its type)
        raise Problem(404, "unknown_game", f"no game {game_id}")
    if not is_finished(stored):
        raise Problem(409, "game_not_over", "a record is made once the game is over")
    names, bots = await c.seated([game_id])
    doc = record(game, stored, names[game_id], bots[game_id])
    return Response(orjson.dumps(doc), media_type="application/json")


@router.get(
    "/v1/records",
    responses={
        **PROBLEMS,
        200: {
            "description": "JSON Lines: one GameRecord per line, oldest end first",
            "content": {
                "application/jsonl": {"schema": {"$ref": "#/components/schemas/GameRecord"}}
            },
        },
    },
)
async def export(
    request: Request,
    c: ClientsDep,
    game: Annotated[str, Query(description="a game type; all kinds if empty")] = "",
    since_ms: Annotated[int, Query(ge=0, description="ended at or after (ms)")] = 0,
    until_ms: Annotated[int, Query(ge=0, description="ended before (ms); now if 0")] = 0,
) -> StreamingResponse:
    """Every finished game of a kind that ended in [since_ms, until_ms), for research,
    streamed as it is read (the CLI: ``raffe records export``)."""
    if game and game not in GAMES:
        raise Problem(404, "unknown_game_type", f"no game type {game}")
    await c.quota.take(request.state.client_address)  # a whole-store scan: as dear as a create
    until = until_ms or int(time.time() * 1000) + 1

    async def lines() -> AsyncIterator[bytes]:
        async for stored in finished(c.store, game, since_ms, until):
            # Games only: a finished tournament's stream ends too, and has no record.
            if stored[0].game_type in GAMES and not await c.holds.held(stored[0].game_id):
                yield await _line(c, stored)

    return StreamingResponse(lines(), media_type="application/jsonl")


async def _line(c: Clients, stored: list[StoredEvent]) -> bytes:
    game_id = stored[0].game_id
    names, bots = await c.seated([game_id])
    doc: dict[str, Any] = record(GAMES[stored[0].game_type], stored, names[game_id], bots[game_id])
    return orjson.dumps(doc) + b"\n"

"""Quick play: queue for a game kind and table size, see your place and wait live, be
seated (docs/quickplay.md). The queue is in Redis, the matchmaker in the bot runner's
processes: any gateway takes any request."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field
from starlette.responses import StreamingResponse

from gateway.accounts.awaiting import check_turn_based_cap
from gateway.accounts.tokens import TICKET_S
from gateway.clients import Clients
from gateway.games.models import StreamTicket
from gateway.http.auth import CallerDep, ClientsDep, player
from gateway.http.openapi import TOKEN_REQUIRED
from gateway.http.problems import Problem, problems
from gateway.live.frames import drained
from services.core.codec import dumps
from services.games import GAMES
from services.kernel.commands import Strict
from services.quickplay.matching import estimated_wait_ms

router = APIRouter(prefix="/v1/quickplay", tags=["quickplay"])
POLL_S = 0.5  # a waiting stream looks at its ticket this often
PROBLEMS = problems(
    (401, "sign in first (a player's token)"),
    (403, "the token lacks the 'play' scope"),
    (404, "you are not queued"),
    (409, "you are queued (or seated) already"),
    (422, "no such game kind, or a table size or speed it does not take"),
    (429, "too many joins (Retry-After), or as many turn-based games as allowed"),
)
Speed = Literal["realtime", "turn_based"]
SpeedQuery = Annotated[
    Speed, Query(description="which of your tickets: a real-time table's or a turn-based one's")
]


class JoinQueue(Strict):
    game: str = Field(description="the game kind, e.g. giraffe-raffe")
    seats: int = Field(ge=1, le=30, description="the table size")
    speed: Speed = Field(
        "realtime",
        description="realtime: everyone plays now (bots after seconds); turn_based: a game "
        "over days (1 day per move) whose seats fill over hours, bots after "
        "RAFFE_TURN_BASED_BOTS_AFTER_S. One ticket of each speed at a time.",
    )


class QueueTicket(BaseModel):
    state: str = Field(description="waiting, matched (a table is being set), seated, cancelled")
    game: str
    seats: int
    speed: Speed = "realtime"
    joined_ms: int
    position: int = Field(description="your place in the queue by waiting time (0: not waiting)")
    waiting: int = Field(description="players waiting in this queue")
    estimated_wait_s: float = Field(description="at most until bots fill the table")
    game_id: str | None = Field(None, description="your table, once matched")
    seat: int | None = None


def bots_after_s(c: Clients, speed: str) -> float:
    """How long a ticket of that speed waits at most before bots fill its table."""
    if speed == "realtime":
        return c.settings.quickplay_bots_after_s
    return c.settings.turn_based_bots_after_s


async def ticket_of(c: Clients, player_id: str, speed: str = "realtime") -> dict[str, Any] | None:
    found = await c.queue.ticket(player_id, speed)
    if found is None:
        return None
    game, size = found["game"], found["size"]
    position, waiting = await c.queue.position(player_id, game, size, speed)
    waited = int(time.time() * 1000) - found["joined_ms"]
    bots_after = int(bots_after_s(c, speed) * 1000)
    waits = found["state"] == "waiting"
    return {
        "state": found["state"],
        "game": game,
        "seats": size,
        "speed": speed,
        "joined_ms": found["joined_ms"],
        "position": position,
        "waiting": waiting,
        "estimated_wait_s": estimated_wait_ms(waited, bots_after) / 1000 if waits else 0.0,
        "game_id": found.get("game_id"),
        "seat": found.get("seat"),
    }


@router.post(
    "",
    status_code=202,
    response_model=QueueTicket,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def join(body: JoinQueue, c: ClientsDep, who: CallerDep, request: Request) -> dict[str, Any]:
    """Queue for a table of ``seats`` of ``game``: players near your rating are seated
    with you as soon as there are enough; after RAFFE_QUICKPLAY_BOTS_AFTER_S (a
    turn-based table: RAFFE_TURN_BASED_BOTS_AFTER_S), bots take the seats nobody took.
    Follow it on ``/v1/quickplay/stream`` (or GET it)."""
    me = player(who, "play")
    spec = GAMES.get(body.game)
    if spec is None:
        raise Problem(422, "unknown_game", f"no game kind {body.game}")
    # Quick play is rated: a moderator's suspension of rated play holds here.
    held = (await c.accounts.load(me.player_id)).held("suspend_rated", int(time.time() * 1000))
    if held is not None:
        raise Problem(403, "rated_suspended", f"your rated play is suspended: {held[0]}")
    rule = spec.seat_rule({})
    if not rule["min"] <= body.seats <= rule["max"] or body.seats < 2:
        raise Problem(
            422, "bad_table_size", f"{body.game} tables take {max(2, rule['min'])}-{rule['max']}"
        )
    if body.speed == "turn_based":
        schema = spec.options_schema() if callable(spec.options_schema) else spec.options_schema
        if "speed" not in schema.get("properties", {}):
            raise Problem(422, "bad_speed", f"{body.game} is not played turn-based")
        await check_turn_based_cap(c, [me.player_id])
    await c.accounts.limits.take("queue_join", "", me.player_id)
    await c.accounts.limits.take("queue_join_address", request.state.client_address, "")
    rating = (await c.boards.ratings_of([body.game], me.player_id)).get(body.game, {})
    now, score = int(time.time() * 1000), rating.get("score", 0.0)
    wait_s = bots_after_s(c, body.speed)
    joined = await c.queue.join(me.player_id, body.game, body.seats, now, score, body.speed, wait_s)
    if not joined:
        raise Problem(409, "already_queued", "you are queued already: cancel first")
    found = await ticket_of(c, me.player_id, body.speed)
    assert found is not None
    return found


@router.get("", response_model=QueueTicket, responses=PROBLEMS, openapi_extra=TOKEN_REQUIRED)
async def status(c: ClientsDep, who: CallerDep, speed: SpeedQuery = "realtime") -> dict[str, Any]:
    """Your quick-play ticket of that speed: your place, the wait, your table once
    seated."""
    found = await ticket_of(c, player(who, "read").player_id, speed)
    if found is None:
        raise Problem(404, "not_queued", "you have not queued")
    return found


@router.delete("", status_code=204, responses=PROBLEMS, openapi_extra=TOKEN_REQUIRED)
async def cancel(c: ClientsDep, who: CallerDep, speed: SpeedQuery = "realtime") -> Response:
    """Leave the queue of that speed (too late once a table was set for you: 409)."""
    me = player(who, "play")
    found = await c.queue.ticket(me.player_id, speed)
    if found is None:
        raise Problem(404, "not_queued", "you have not queued")
    if not await c.queue.cancel(me.player_id, found["game"], found["size"], speed):
        raise Problem(409, "too_late", f"your ticket is {found['state']}")
    return Response(status_code=204)


@router.post(
    "/stream-tickets",
    status_code=201,
    response_model=StreamTicket,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def stream_ticket(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """A ticket for ``/v1/quickplay/stream`` (a browser's EventSource sends no header)."""
    return {"ticket": await c.tokens.ticket(player(who, "read")), "expires_in": TICKET_S}


@router.get("/stream", responses=PROBLEMS, openapi_extra=TOKEN_REQUIRED)
async def stream(
    c: ClientsDep,
    who: CallerDep,
    ticket: Annotated[str | None, Query(max_length=64, description="a stream ticket")] = None,
    speed: SpeedQuery = "realtime",
) -> StreamingResponse:
    """Your ticket live (Server-Sent Events, ``event: queue``) at once and at every
    change (place, wait, seated); ends once seated or cancelled."""
    if ticket is not None:
        found = await c.tokens.resolve_ticket(ticket)
        if found is None:
            raise Problem(401, "bad_ticket", "unknown or expired stream ticket")
        who = found
    player_id = player(who, "read").player_id
    if c.live.draining:
        raise Problem(503, "draining", "this gateway is stopping; try again", retry_after=1)

    async def frames() -> AsyncIterator[bytes]:
        last = None
        while True:
            if c.live.draining:  # stopping: the client reconnects to another replica
                yield drained()
                return
            now = await ticket_of(c, player_id, speed)
            shown = None if now is None else {**now, "estimated_wait_s": 0}
            if now is not None and (shown != last or now["state"] == "waiting"):
                yield b"event: queue\ndata: " + dumps(now) + b"\n\n"
                last = shown
            if now is None or now["state"] in ("seated", "cancelled"):
                return
            await asyncio.sleep(POLL_S)

    return StreamingResponse(
        frames(), media_type="text/event-stream", headers={"X-Accel-Buffering": "no"}
    )

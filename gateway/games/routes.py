"""The games API (DESIGN §5), the same shape for every game."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, Header, Path, Query, Request, Response
from pydantic import Field

from gateway.accounts.awaiting import check_turn_based_cap, turn_based
from gateway.accounts.models import Seats
from gateway.accounts.tokens import TICKET_S, Caller, TokenRotated, creation_key
from gateway.clients import Clients
from gateway.games.commands import MAX_VERSION, run_command
from gateway.games.live_stream import check_hold, open_stream
from gateway.games.models import (
    Claimed,
    CommandIn,
    CommandResult,
    Created,
    CreateGame,
    EventPage,
    GameView,
    Lobby,
    ReplayView,
    StreamTicket,
)
from gateway.http.auth import (
    CallerDep,
    ClientsDep,
    acting_seat,
    caller,
    clients,
    player,
    rotating_caller,
    seat_in,
)
from gateway.http.openapi import TOKEN_OPTIONAL, TOKEN_REQUIRED
from gateway.http.problems import Problem, problems
from gateway.live.delay import Delay
from gateway.live.formats import Format
from services.accounts.vacations import seated_on_vacation
from services.core.codec import dumps, to_domain
from services.core.eventstore.keys import GAME_ID
from services.core.transport import EngineClient
from services.games import GAMES
from services.kernel.commands import Strict
from services.kernel.game import SPECTATOR, SeatSpec
from services.notifier.channels import watching_key

router = APIRouter(prefix="/v1/games", tags=["games"])
GameId = Annotated[str, Path(pattern=GAME_ID.pattern, description="the game's id")]
WATCHING_S = 90  # a page says it is in view every minute: this long after, it is not
RotatingDep = Annotated[Caller, Depends(rotating_caller)]  # 409 for a token rotated already
PROBLEMS = problems(
    (400, "the body is not JSON (bad_json)"),
    (401, "no or unknown seat token"),
    (403, "the token belongs to another game or seat"),
    (404, "no such game"),
    (409, "version conflict (current_version in the body) or seat taken"),
    (413, "body too large"),
    (415, "body is not application/json"),
    (422, "invalid request or a rule violation (code in the body)"),
    (429, "too many requests (Retry-After)"),
)


@router.post("", status_code=201, response_model=Created, responses=PROBLEMS)
async def create_game(
    body: CreateGame, c: ClientsDep, request: Request, response: Response
) -> Created:
    """Create a game: seats are human (a token is returned for each), open (claimable by
    anyone) or bot (played by the bot runner at ``bot_level``).

    With a ``command_id`` the create is idempotent: the same request again from the same
    client answers the same game and tokens (the id is then a secret: make it a UUID);
    the same id with another body is refused (``command_id_reused``)."""
    for i, seat in enumerate(body.seats):
        if seat.kind == "bot" and seat.bot_level and seat.bot_level not in GAMES[body.game].bots:
            levels = ", ".join(GAMES[body.game].bots)
            raise Problem(422, "bad_bot_level", f"seat {i}: bot levels are {levels}")
    if body.seed and not body.practice and any(s.kind != "bot" for s in body.seats):
        raise Problem(
            422,
            "seed_needs_practice",
            "whoever chooses the seed knows every hand and secret vote: a seed is for "
            'practice games ("practice": true) or tables of bots only',
        )
    players = await seat_players(c, body, request)
    if players and (body.options or {}).get("speed") == "turn_based":
        await check_turn_based_cap(c, list(players.values()))
    engine = c.engines[body.game]
    seats = [
        SeatSpec(s.kind, s.name, s.bot_level, players.get(i, "")) for i, s in enumerate(body.seats)
    ]
    await c.quota.take(request.state.client_address)
    key = creation_key(request.state.client_address, body.command_id) if body.command_id else ""
    created = await engine.create(
        seats,
        body.options,
        game_id=key[:32],
        seed=body.seed or "",
        command_id="create" if key else "",
        practice=body.practice or bool(body.seed),
    )
    others = frozenset(i for i, s in enumerate(body.seats) if s.player not in (None, "me"))
    kinds: list[str] = [s.kind for s in body.seats]
    options = body.options or {}
    tokens = await seated(c, engine, created.game_id, kinds, players, options, key, others)
    response.headers["Location"] = f"/v1/games/{created.game_id}"
    return Created(
        game_id=created.game_id,
        game=body.game,
        version=created.version,
        seed_hash=created.seed_hash,
        tokens=tokens,
    )


async def seated(
    c: Clients,
    engine: EngineClient,
    game_id: str,
    kinds: list[str],
    players: dict[int, str],
    options: dict[str, Any],
    key: str = "",
    others: frozenset[int] = frozenset(),
) -> dict[int, str]:
    """A new game's seat tokens (none for ``others``: seats of players other than the
    caller), and its players bound to their seats: in their lists of games, and a
    turn-based clock stopped for whoever is on vacation. The tokens by seat."""
    tokens = await c.tokens.register(game_id, kinds, key, others)
    if players:
        await c.tokens.bind_players(game_id, players)
        for index, player_id in players.items():
            await c.accounts.take_seat(player_id, game_id, index)
        if options.get("speed") == "turn_based":
            prefix = c.settings.store.key_prefix
            await seated_on_vacation(c.store.redis, prefix, engine, game_id, players)
    return tokens


async def seat_players(c: Clients, body: CreateGame, request: Request) -> dict[int, str]:
    """Seat -> player id for the seats a player holds ("me": the caller, whose token is
    read only then: a create without players reads no Authorization, as before)."""
    players: dict[int, str] = {}
    for i, seat in enumerate(body.seats):
        if seat.player is None:
            continue
        if seat.kind != "human":
            raise Problem(422, "bad_seat", f"seat {i}: only a human seat has a player")
        if seat.player == "me":
            players[i] = player(await caller(request), "play").player_id
        else:
            players[i] = seat.player
    if len(set(players.values())) < len(players):
        raise Problem(422, "player_twice", "a player holds at most one seat of a game")
    names = await c.accounts.names(list(players.values()))
    missing = sorted(p for p in players.values() if p not in names)
    if missing:
        raise Problem(422, "no_player", f"no player {', '.join(missing)}")
    return players


@router.get("", response_model=Lobby, responses=PROBLEMS)
async def lobby(
    c: ClientsDep,
    game: str | None = None,
    status: Annotated[str | None, Query(pattern="^(open|running|over)$")] = None,
    open_seats: bool = False,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """Games, newest first. ``status=open``: games with a seat anyone may claim."""
    games = await c.read_models.lobby(await c.generation(), limit * 4)
    unclaimed = await c.tokens.open_seats([g["game_id"] for g in games])
    names, bots = await c.seated([g["game_id"] for g in games])
    out = []
    for summary in games:
        if await c.holds.held(summary["game_id"]):
            continue  # a duplicate table whose deal is still played elsewhere
        summary["open_seats"] = unclaimed[summary["game_id"]]
        with_names(summary.get("seats", []), names[summary["game_id"]], bots[summary["game_id"]])
        over = summary["status"]["over"]
        wanted = (
            (game is None or summary["game"] == game)
            and (not open_seats or summary["open_seats"])
            and (status is None or (status == "over") == over)
            and (status != "open" or bool(summary["open_seats"]))
        )
        if wanted:
            if not over and Delay.of(summary.get("options", {})):
                await shown_late(c, summary)
            out.append(summary)
            if len(out) == limit:
                break
    return {"games": out}


async def shown_late(c: Clients, summary: dict[str, Any]) -> None:
    """A lobby entry of a game spectators see late, as they see it: not whose turn it
    is now, nor how far it is, nor when it last moved."""
    summary["status"] = {**summary["status"], "to_act": []}
    shown = await c.delays.shown(summary["game_id"])
    if shown is not None:
        summary["version"], summary["updated_ms"] = shown[0], shown[1] or summary["created_ms"]


def with_names(seats: list[dict[str, Any]], names: dict[int, str], bots: set[int]) -> None:
    """Seats held by players show the player's name now (erased: none), and whether the
    player is a bot account."""
    for i, seat in enumerate(seats):
        if i in names:
            seat["name"] = names[i]
        seat["bot_account"] = i in bots


@router.post(
    "/{game_id}/seats/{seat}",
    status_code=201,
    response_model=Claimed,
    responses=PROBLEMS,
    openapi_extra=TOKEN_OPTIONAL,
)
async def claim_seat(
    game_id: GameId, seat: Annotated[int, Path(ge=0, le=29)], c: ClientsDep, who: CallerDep
) -> Claimed:
    """Claim an open seat: the answer holds its bearer token, shown once. Signed in
    (a player's token with ``play``), the seat is yours: your token acts at it too,
    from any device, and the game is in your games."""
    await c.game_type(game_id)
    slow = False
    if who.player_id:
        player(who, "play")
        if who.game_id == game_id:
            raise Problem(409, "already_seated", f"you hold seat {who.seat} of this game")
        if slow := await turn_based(c, game_id):
            await check_turn_based_cap(c, [who.player_id])
    token = await c.tokens.claim(game_id, seat)
    if token is None:
        raise Problem(409, "seat_taken", f"seat {seat} is not open or is already taken")
    if who.player_id:
        await c.tokens.bind_players(game_id, {seat: who.player_id})
        await c.accounts.take_seat(who.player_id, game_id, seat)
    if slow:  # a turn-based seat taken by a player on vacation: its clock waits too
        engine, prefix = await c.engine_for(game_id), c.settings.store.key_prefix
        await seated_on_vacation(c.store.redis, prefix, engine, game_id, {seat: who.player_id})
    return Claimed(game_id=game_id, seat=seat, token=token)


@router.get("/{game_id}/seats", response_model=Seats, responses=PROBLEMS)
async def seats(game_id: GameId, c: ClientsDep) -> dict[str, Any]:
    """Who sits where: each seat's kind, name (a player's name now), the player holding
    it, whether it is still open, and its player's presence (connected, away, gone)."""
    await c.game_type(game_id)
    listed = await _seat_list(c, game_id)
    seated = (await c.tokens.players([game_id]))[game_id]
    all_names, all_bots = await c.seated([game_id])
    names, bots = all_names[game_id], all_bots[game_id]
    unclaimed = set((await c.tokens.open_seats([game_id]))[game_id])
    presence = await c.live.presence.of(game_id) if c.live.presence is not None else {}
    out = []
    for i, s in enumerate(listed):
        out.append(
            {
                "seat": i,
                "kind": s["kind"],
                "name": names.get(i, s.get("name", "")),
                "bot_level": s.get("bot_level", ""),
                "player_id": seated.get(i),
                "bot_account": i in bots,
                "open": i in unclaimed,
                "presence": presence.get(i),
            }
        )
    return {"game_id": game_id, "seats": out}


async def _seat_list(c: Clients, game_id: str) -> list[dict[str, Any]]:
    """The seats as the game was made with them: from the read models, or, for a game
    a moment old that they have not folded yet, from its first event (GameCreated), so a
    client that asks right after making the game gets its answer, not a 503."""
    summary = (await c.read_models.summaries(await c.generation(), [game_id])).get(game_id)
    if summary is not None:
        return list(summary.get("seats", []))
    first = await c.store.read_game_range(game_id, 0, 1)
    if first and first[0].type == "GameCreated":
        return list(to_domain(first[0]).data.get("seats", []))
    raise Problem(503, "not_projected", "the game is a moment old: ask again", retry_after=1)


@router.post(
    "/{game_id}/seats/{seat}/token",
    status_code=201,
    response_model=Claimed,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def rotate_token(
    game_id: GameId, seat: Annotated[int, Path(ge=0, le=29)], c: ClientsDep, who: RotatingDep
) -> Claimed:
    """A new token for your seat (send the current one): the one you sent stops working
    at once, on every gateway, and so do the live streams and stream tickets it opened.
    Do it when a token may have leaked, or before it expires (RAFFE_TOKEN_TTL_S after it
    was issued). Only one rotation of a token wins: the others answer 409
    ``token_rotated``."""
    if who.player_id:
        raise Problem(
            403, "seat_token_required", "rotate a seat token; sign out to end a player's token"
        )
    if acting_seat(game_id, who) != seat:
        raise Problem(403, "wrong_seat", "this token belongs to another seat")
    return Claimed(game_id=game_id, seat=seat, token=await rotated(c, who))


async def rotated(c: Clients, who: Caller) -> str:
    """The caller's token rotated, or 409 when another rotation of it won."""
    try:
        return await c.tokens.rotate(who)
    except TokenRotated:
        raise Problem(
            409, "token_rotated", "this token was rotated already: use the new one"
        ) from None


@router.get(
    "/{game_id}",
    response_model=GameView,
    responses={
        **PROBLEMS,
        202: {
            "model": GameView,
            "description": "min_version does not exist (yet) after RAFFE_READ_WAIT_MS: the "
            "newest view there is, whose version is lower",
        },
    },
    openapi_extra=TOKEN_OPTIONAL,
)
async def get_game(
    game_id: GameId,
    c: ClientsDep,
    who: CallerDep,
    response: Response,
    min_version: Annotated[int, Query(ge=0, le=MAX_VERSION)] = 0,
) -> GameView | Response:
    """The caller's view (a spectator's without a token). ``min_version`` waits, bounded,
    until the read model has caught up with your own write; a version that does not
    exist by then answers 202 with the newest view there is (never a silent 200 with an
    older one)."""
    seat = seat_in(game_id, who)
    engine = await c.engine_for(game_id)  # 404 for unknown games, before any waiting
    await check_hold(c, game_id, seat)
    late = await c.delays.limit(game_id) if seat == SPECTATOR else None
    if late is not None:  # spectators see this game late (gateway.live.delay)
        view = await delayed_view(c, game_id, late)
        response.headers["ETag"] = f'"{late}"'
        if late < min_version:
            response.status_code = 202
        return GameView(game_id=game_id, version=late, seat=seat, view=view, source="delayed")
    recent = c.recent_views.at_least(game_id, seat, min_version) if min_version else None
    if recent is not None:  # the view this gateway just answered a command of the seat with
        return view_response(game_id, seat, *recent)
    # Spectators read the public view from the read models; a seat's own view comes from
    # its command's answer (above) or the engine, which holds the game's state.
    found = await c.projected_view(game_id, min_version) if seat == SPECTATOR else None
    if found is not None:
        response.headers["ETag"] = f'"{found[0]}"'
        return GameView(
            game_id=game_id, version=found[0], seat=seat, view=found[1], source="projection"
        )
    # The projection lags (or has not seen the game yet): the engine answers as soon as
    # the version asked for exists.
    await c.await_version(game_id, min_version)
    version, view, _ = await engine.view(game_id, seat)
    response.headers["ETag"] = f'"{version}"'
    if version < min_version:  # not there after RAFFE_READ_WAIT_MS: say so, not 200
        response.status_code = 202
    return GameView(game_id=game_id, version=version, seat=seat, view=view, source="engine")


async def delayed_view(c: Clients, game_id: str, version: int) -> dict[str, Any]:
    """The spectators' view of a game shown late, at ``version`` (kept: all ask alike)."""
    view = c.delays.views.get((game_id, version))
    if view is None:
        view = await c.replay(game_id, SPECTATOR, version)
        c.delays.views.put((game_id, version), view, len(dumps(view)))
    return view


def view_response(game_id: str, seat: int, version: int, view: bytes) -> Response:
    """A GameView from a view's JSON as the engine wrote it (not parsed again)."""
    body = {
        "game_id": game_id,
        "version": version,
        "seat": seat,
        "view": orjson.Fragment(view),
        "source": "command",
    }
    return Response(
        orjson.dumps(body), media_type="application/json", headers={"ETag": f'"{version}"'}
    )


@router.get("/{game_id}/commands", responses=PROBLEMS, openapi_extra=TOKEN_REQUIRED)
async def legal_commands(game_id: GameId, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """The caller's legal commands, in the game's compact form (a spectator of a game
    shown late: as they were at the version spectators see)."""
    seat = seat_in(game_id, who)
    engine = await c.engine_for(game_id)
    await check_hold(c, game_id, seat)
    late = await c.delays.limit(game_id) if seat == SPECTATOR else None
    if late is not None:
        return await c.delays.commands(c.live.games[await c.game_type(game_id)], game_id, late)
    version, legal = await engine.commands(game_id, seat)
    return {"version": version, **legal}


@router.post(
    "/{game_id}/commands",
    response_model=CommandResult,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def execute(
    game_id: GameId,
    body: CommandIn,
    request: Request,
    if_match: Annotated[str | None, Header(description="the version you saw")] = None,
) -> Response:
    """Send a command as your seat. With If-Match, a stale version is a 409 carrying the
    current one; the same command_id again returns the first result."""
    # Valid commands seldom get here: gateway.games.fast_path answers them before routing
    # (with the same run_command); this route documents the API and answers the invalid
    # ones.
    authorization = request.headers.get("authorization", "")
    return await run_command(await clients(request), game_id, body, authorization, if_match)


@router.get(
    "/{game_id}/events", response_model=EventPage, responses=PROBLEMS, openapi_extra=TOKEN_OPTIONAL
)
async def events(
    game_id: GameId,
    c: ClientsDep,
    who: CallerDep,
    after: Annotated[int, Query(ge=0, le=MAX_VERSION)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 500,
) -> EventPage:
    """Events after version ``after``, redacted for the caller until the game ends (and,
    for spectators of a game shown late, up to the version they may see)."""
    seat = seat_in(game_id, who)
    await check_hold(c, game_id, seat)
    version, page = await (await c.engine_for(game_id)).events(game_id, seat, after, limit)
    late = await c.delays.limit(game_id) if seat == SPECTATOR else None
    if late is not None:
        version, page = late, [e for e in page if e["version"] <= late]
    return EventPage(version=version, events=page)


@router.post(
    "/{game_id}/stream-tickets",
    status_code=201,
    response_model=StreamTicket,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def stream_ticket(game_id: GameId, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """A ticket for your seat's live stream, for clients that cannot send headers with
    it (a browser's EventSource): open ``events/stream?ticket=…`` within
    ``expires_in`` seconds (reconnecting with it is fine until then)."""
    acting_seat(game_id, who)
    return {"ticket": await c.tokens.ticket(who), "expires_in": TICKET_S}


class Watching(Strict):
    visible: bool = Field(description="the table is on a page its player can see now")


@router.put(
    "/{game_id}/watching", status_code=204, responses=PROBLEMS, openapi_extra=TOKEN_REQUIRED
)
async def watching(game_id: GameId, body: Watching, c: ClientsDep, who: CallerDep) -> Response:
    """Say whether your seat's table is in view (a client calls it when its page shows or
    hides, and every minute while shown): while it is, you are told nothing of your turns
    there (docs/notifications.md); it lapses WATCHING_S after the last call."""
    seat = acting_seat(game_id, who)
    key = watching_key(c.settings.store.key_prefix, game_id, seat)
    if body.visible:
        await c.store.redis.set(key, "1", ex=WATCHING_S)
    else:
        await c.store.redis.delete(key)
    return Response(status_code=204)


@router.get("/{game_id}/events/stream", responses=PROBLEMS, openapi_extra=TOKEN_OPTIONAL)
async def stream(
    game_id: GameId,
    request: Request,
    c: ClientsDep,
    who: CallerDep,
    after: Annotated[int, Query(ge=0, le=MAX_VERSION)] = 0,
    last_event_id: Annotated[str | None, Header()] = None,
    ticket: Annotated[str | None, Query(max_length=64, description="a stream ticket")] = None,
    views: Annotated[
        bool,
        Query(
            description="also send, after each batch of events, a `view` frame: your view "
            "and legal commands at the new version (and one at once, for where you start)"
        ),
    ] = False,
    format: Annotated[
        Format | None,
        Query(description="sse or ndjson; else the Accept header's choice (SSE by default)"),
    ] = None,
) -> Response:
    """The same events live, as Server-Sent Events or new-line delimited JSON (the
    client's choice, docs/bot-api.md); reconnect with Last-Event-ID (or ``after``, the
    last id you had). A seat sends its bearer token, or (browsers) a ticket from
    ``stream-tickets``. With ``views=true`` a table redraws from the stream alone: your
    view and legal commands first, then after each change."""
    # Valid requests are served by the fast path (gateway.games.stream_fast_path): this
    # route documents the stream and explains bad input, and serves what the fast path
    # passes on.
    return await open_stream(c, request, game_id, who, after, last_event_id, ticket, views, format)


@router.get(
    "/{game_id}/replay",
    response_model=ReplayView,
    responses=PROBLEMS,
    openapi_extra=TOKEN_OPTIONAL,
)
async def replay(
    game_id: GameId,
    c: ClientsDep,
    who: CallerDep,
    version: Annotated[int, Query(ge=1, le=MAX_VERSION)],
    reveal: bool = False,
) -> dict[str, Any]:
    """The caller's view as it was at ``version``. ``reveal=true`` shows every card and
    the seed, for games that are over (their whole log is public then)."""
    seat = seat_in(game_id, who)
    await c.game_type(game_id)
    await check_hold(c, game_id, seat)
    late = await c.delays.limit(game_id) if seat == SPECTATOR else None
    if late is not None and version > late:
        raise Problem(403, "delayed", f"spectators see this game late: up to version {late}")
    view = await c.replay(game_id, seat, version, reveal)
    return {"game_id": game_id, "version": version, "seat": seat, "view": view}

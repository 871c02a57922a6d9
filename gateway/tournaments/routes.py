"""The tournaments API: an organiser creates a tournament, registers players and bots
and starts it; anyone follows rounds, tables, standings and ratings (and live, by SSE);
a human player finds their table and seat token with their player token."""

from __future__ import annotations

import hashlib
import hmac
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response

from gateway.accounts.tokens import SEAT_LIMIT, Caller, token_hash
from gateway.clients import Clients
from gateway.games.commands import MAX_VERSION, version_number
from gateway.games.models import (
    CreateTournament,
    JoinTournament,
    MyTables,
    PlayerRegistered,
    RegisterPlayer,
    Standings,
    TokenRotatedOut,
    Tournament,
    TournamentCreated,
    TournamentListing,
    Versioned,
)
from gateway.games.routes import PROBLEMS, rotated
from gateway.http.auth import CallerDep, ClientsDep, rotating_caller
from gateway.http.openapi import TOKEN_REQUIRED
from gateway.http.problems import Problem
from gateway.live.stream import event_stream
from gateway.tournaments.pages import Page
from services.core.errors import UnknownGame
from services.core.transport import EngineClient
from services.games import GAMES
from services.kernel.game import ENGINE, SPECTATOR, SeatSpec
from services.tournament.ids import table_game_id
from services.tournament.options import MAX_PLAYERS

router = APIRouter(prefix="/v1/tournaments", tags=["tournaments"])
TournamentId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_]{1,40}$")]
RotatingDep = Annotated[Caller, Depends(rotating_caller)]  # 409 for a token rotated already
ORGANISER = 0
PLAYER_SEATS = SEAT_LIMIT  # a player's token resolves to seat PLAYER_SEATS + player
BOT_LEVELS = {level for game in GAMES.values() for level in game.bots}  # of any game


def _engine(c: Clients) -> EngineClient:
    engine = c.engines.get("tournament")
    if engine is None:
        raise Problem(503, "no_tournaments", "this gateway has no tournament service")
    return engine


def _organiser(tournament_id: str, who: Caller) -> None:
    if not who.game_id:
        raise Problem(401, "token_required", "send the organiser's bearer token")
    if who.game_id != tournament_id or who.seat != ORGANISER:
        raise Problem(403, "not_organiser", "only this tournament's organiser may do that")


@router.post("", status_code=201, response_model=TournamentCreated, responses=PROBLEMS)
async def create(
    body: CreateTournament, c: ClientsDep, request: Request, response: Response
) -> TournamentCreated:
    """Create a tournament; keep the organiser token it returns."""
    await c.quota.take(request.state.client_address)
    options = body.model_dump(exclude_none=True)
    # Defaults are left out: what a tournament engine of before them reads.
    if not options["open_registration"]:
        del options["open_registration"]
    if options["max_players"] == MAX_PLAYERS:
        del options["max_players"]
    if not options["bots_allowed"]:
        del options["bots_allowed"]
    created = await _engine(c).create([SeatSpec("human", "organiser")], options)
    tokens = await c.tokens.register(created.game_id, ["human"])
    response.headers["Location"] = f"/v1/tournaments/{created.game_id}"
    return TournamentCreated(
        tournament_id=created.game_id, organiser_token=tokens[0], version=created.version
    )


@router.post(
    "/{tournament_id}/players",
    status_code=201,
    response_model=PlayerRegistered,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def register(
    tournament_id: TournamentId, body: RegisterPlayer, c: ClientsDep, who: CallerDep
) -> PlayerRegistered:
    """Register a bot or a human (organiser only, before the start). A human gets a
    player token: with it, GET /me shows their table and the seat token to play it."""
    _organiser(tournament_id, who)
    if body.kind == "bot" and body.bot_level and body.bot_level not in BOT_LEVELS:
        raise Problem(422, "bad_bot_level", f"bot levels are {', '.join(sorted(BOT_LEVELS))}")
    command = {"type": "register", **body.model_dump(exclude={"command_id", "account"})}
    if body.account is not None:
        command |= await _account_entrant(c, body.account, body.name)
    human = body.kind == "human"
    return await _registered(c, tournament_id, ORGANISER, command, human, body.command_id)


@router.post(
    "/{tournament_id}/join", status_code=201, response_model=PlayerRegistered, responses=PROBLEMS
)
async def join(
    tournament_id: TournamentId,
    body: JoinTournament,
    c: ClientsDep,
    request: Request,
    who: CallerDep,
) -> PlayerRegistered:
    """Join an open tournament (one created with open_registration) as a human, before it
    starts; no token needed. Keep the player token: with it, GET /me shows your table and
    the seat token to play it. Signed in (a player's token), your account enters: its
    token plays your tables, and your account stream announces each (docs/bot-api.md);
    a bot account enters only a tournament created with ``bots_allowed`` (422
    ``bots_not_allowed``), or a ladder. A closed tournament answers 422 ``closed``; a name that is
    not plain text 422 ``bad_name``, one that looks like a name taken 422 ``name_taken``.
    One address adds at most RAFFE_JOINS_PER_ADDRESS entrants to a tournament, and a
    tournament takes at most RAFFE_JOINS_PER_MINUTE joins a minute (429, Retry-After)."""
    if await c.game_type(tournament_id) != "tournament":
        raise Problem(404, "unknown_tournament", f"no tournament {tournament_id}")
    await c.joins.take(tournament_id, request.state.client_address, body.command_id)
    command = {"type": "join", "name": body.name}
    if who.player_id:  # signed in: the account enters, and its token plays its tables
        command |= await _account_entrant(c, who.player_id, body.name)
    elif not body.name:
        raise Problem(422, "bad_name", "a name to show in the standings")
    return await _registered(c, tournament_id, ENGINE, command, True, body.command_id)


@router.delete(
    "/{tournament_id}/players/{player}",
    response_model=Versioned,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def remove(
    tournament_id: TournamentId,
    player: Annotated[int, Path(ge=0, le=100_000)],
    c: ClientsDep,
    who: CallerDep,
) -> dict[str, Any]:
    """Take an entrant out before the start (organiser only): they keep their number in
    the player list, marked ``removed``, and are never paired; their name is free again."""
    _organiser(tournament_id, who)
    command = {"type": "remove", "player": player}
    done = await _engine(c).execute(tournament_id, ORGANISER, command, _cid(), 0)
    return {"version": done.version}


async def _account_entrant(c: Clients, account: str, name: str) -> dict[str, Any]:
    """An account's entry: its name (unless another is given) and whether it is a bot
    account's (only a tournament allowing bots, or a ladder, takes those)."""
    entry = await c.accounts.directory_entry(account)
    if entry is None:
        raise Problem(404, "no_player", f"no player {account}")
    return {"account": account, "name": name or entry["name"], "program": bool(entry.get("bot"))}


async def _registered(
    c: Clients,
    tournament_id: str,
    seat: int,
    command: dict[str, Any],
    human: bool,
    command_id: str | None,
) -> PlayerRegistered:
    """Send a register or join; the new player, with a player token for a human. Sent
    again under its command id, the engine answers with the entry it made then (a
    duplicate), and the person gets a token for it: the first answer may never have
    reached them."""
    done = await _engine(c).execute(tournament_id, seat, command, command_id or _cid(), 0)
    player = next(e["data"]["player"] for e in done.events if e["type"] == "PlayerRegistered")
    token = await c.tokens.issue(tournament_id, PLAYER_SEATS + player) if human else None
    return PlayerRegistered(player=player, version=done.version, token=token)


@router.post(
    "/{tournament_id}/start",
    response_model=Versioned,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def start(tournament_id: TournamentId, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Start (organiser only): the first round's tables are paired and their games made."""
    _organiser(tournament_id, who)
    done = await _engine(c).execute(tournament_id, ORGANISER, {"type": "start"}, _cid(), 0)
    return {"version": done.version}


@router.get("", response_model=TournamentListing, responses=PROBLEMS)
async def listing(
    c: ClientsDep,
    status: Annotated[str | None, Query(pattern="^(open|running|over)$")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """Tournaments, newest first (from the read models). ``open``: not started yet."""
    out = []
    for summary in await c.read_models.lobby(await c.generation(), limit, "tournament"):
        st = summary["status"]
        state = "over" if st["over"] else "open" if st["to_act"] else "running"
        if status is None or status == state:
            out.append({"tournament_id": summary["game_id"], "state": state, **summary})
    return {"tournaments": out[:limit]}


PROJECTION_WAIT_S = 0.25  # see _projection_wait


@router.get("/{tournament_id}", response_model=Tournament, responses=PROBLEMS)
async def get(
    tournament_id: TournamentId,
    c: ClientsDep,
    min_version: Annotated[int, Query(ge=0, le=MAX_VERSION)] = 0,
) -> Any:
    """Everything: options, players, rounds with their tables and game ids, standings,
    ratings after each round, and progress in games. Served by the projection's read
    model; ``min_version`` waits for your own write, then asks the engine."""
    if await c.game_type(tournament_id) != "tournament":
        raise Problem(404, "unknown_tournament", f"no tournament {tournament_id}")
    page = await _page(c, tournament_id, min_version, await c.store.version(tournament_id))
    headers = {"ETag": f'"{page.version}"'}  # made once per version (tournament_pages)
    return Response(page.body, media_type="application/json", headers=headers)


async def _page(c: Clients, tournament_id: str, wanted: int, logged: int) -> Page:
    """The page at ``wanted`` or newer (``logged``: the log's version now): the
    projection's if it has it within a moment, else the engine's, one call for every
    reader (gateway.tournaments.pages). A version the log has not yet is waited for
    once, on the engine's path, within the request's deadline."""
    wait = _projection_wait(c) if wanted <= logged else 0.0
    page = await c.pages.page(await c.generation(), tournament_id, wanted, wait)
    if page is not None:
        return page
    if wanted > logged:
        await c.await_version(tournament_id, wanted)
        logged = await c.store.version(tournament_id)
    return await _engine_page(c, tournament_id, min(wanted, logged))


def _projection_wait(c: Clients) -> float:
    """How long a tournament read waits for the projection before the engine's shared
    page: briefly. After a pairing the projection can lag seconds (the round's games
    being made), and readers that each waited RAFFE_READ_WAIT_MS first then queued on
    the one engine view passed the deadline (bench.tournament_crowd: 257 503s)."""
    return min(c.settings.read_wait_ms / 1000, PROJECTION_WAIT_S)


async def _engine_page(c: Clients, tournament_id: str, needed: int) -> Page:
    """The page from the engine, shared by every reader that needs at most ``needed``
    (a version the log has: a reader of a version it has not waits before this)."""

    async def view() -> tuple[int, dict[str, Any]]:
        version, found, _ = await _engine(c).view(tournament_id, SPECTATOR)
        return version, found

    return await c.pages.from_engine(tournament_id, needed, view)


@router.get("/{tournament_id}/standings", response_model=Standings, responses=PROBLEMS)
async def standings(
    tournament_id: TournamentId,
    c: ClientsDep,
    min_version: Annotated[int, Query(ge=0, le=MAX_VERSION)] = 0,
) -> dict[str, Any]:
    version, view, source = await _view(c, tournament_id, min_version)
    return {
        "version": version,
        "source": source,
        "standings": view["standings"],
        "rating_history": view["rating_history"],
        "over": view["status"]["over"],
        "champions": view["status"].get("champions", []),
    }


async def _view(c: Clients, tournament_id: str, min_version: int) -> tuple[int, Any, str]:
    """The public view from the read model when it has ``min_version``, else the engine's."""
    if await c.game_type(tournament_id) != "tournament":
        raise Problem(404, "unknown_tournament", f"no tournament {tournament_id}")
    found = await c.projected_view(tournament_id, min_version)
    if found is not None:
        return found[0], found[1], "projection"
    await c.await_version(tournament_id, min_version)
    version, view, _ = await _engine(c).view(tournament_id, SPECTATOR)
    return version, view, "engine"


@router.get(
    "/{tournament_id}/me", response_model=MyTables, responses=PROBLEMS, openapi_extra=TOKEN_REQUIRED
)
async def me(
    tournament_id: TournamentId,
    request: Request,
    c: ClientsDep,
    who: CallerDep,
    min_version: Annotated[int, Query(ge=0, le=MAX_VERSION)] = 0,
) -> dict[str, Any]:
    """A human player's tables: each game's id, their seat, a seat token for it, and
    whether the game exists yet (``ready``: it is created just after the round starts;
    while it is not, ask again in a second). A table whose seat token you rotated shows
    ``token: null`` (keep the rotated one). ``min_version``: the tournament's version
    you have seen (from its stream); the answer is at least as new as that and as the
    tournament's log when you ask."""
    if who.game_id != tournament_id or who.seat < PLAYER_SEATS:
        raise Problem(401, "token_required", "send your player token")
    player = who.seat - PLAYER_SEATS
    # As current as the engine's answer was: the read model once it has the log's
    # version (a moment after a pairing), the engine if it lags longer.
    logged = await c.store.version(tournament_id)
    page = await _page(c, tournament_id, max(min_version, logged), logged)
    tables = [dict(t) for t in page.tables.get(player, [])]
    player_token = _bearer(request)
    for table in tables:
        table["token"] = _seat_token(player_token, table["game_id"], table["seat"])
        # A finished table's game exists; only the current round's may not have yet.
        table["ready"] = table["finished"] or await _exists(c, table["game_id"])
    # A seat token rotated away from is never bound again.
    recorded = await c.tokens.seat_digests([(t["game_id"], t["seat"]) for t in tables])
    for table, digest in zip(tables, recorded, strict=True):
        if digest is not None and digest != token_hash(table["token"]):
            table["token"] = None
    fresh = [
        (t["token"], t["game_id"], t["seat"])
        for t, digest in zip(tables, recorded, strict=True)
        if t["token"] and digest is None  # bound already: no write on every redraw
    ]
    if fresh:
        await c.tokens.bind_all(fresh)
    return {"player": player, "tables": tables}


async def _tables_of(c: Clients, tournament_id: str, player: int) -> list[dict[str, Any]]:
    """Every table the player sits at, round by round."""
    _, view, _ = await _engine(c).view(tournament_id, SPECTATOR)
    return [
        {
            "round": r["round"],
            "game": r["game"],
            "game_id": table_game_id(tournament_id, r["round"], t["table"]),
            "seat": t["players"].index(player),
            "finished": t["keys"] is not None,
        }
        for r in view["rounds"]
        for t in r["tables"]
        if player in t["players"]
    ]


@router.post(
    "/{tournament_id}/token",
    status_code=201,
    response_model=TokenRotatedOut,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def rotate_token(
    tournament_id: TournamentId, request: Request, c: ClientsDep, who: RotatingDep
) -> TokenRotatedOut:
    """A new organiser or player token (send the current one): the one you sent stops
    working at once, on every gateway. For a player, so do the seat tokens it gave for
    your tables (GET /me with the new token gives new ones). Only one rotation of a
    token wins: the others answer 409 ``token_rotated``."""
    if not who.game_id:
        raise Problem(401, "token_required", "send your organiser or player token")
    if who.game_id != tournament_id:
        raise Problem(403, "wrong_game", "this token belongs to another game")
    token = await rotated(c, who)
    if who.seat >= PLAYER_SEATS:  # the seat tokens the old one derived go with it
        old = _bearer(request)
        tables = await _tables_of(c, tournament_id, who.seat - PLAYER_SEATS)
        await c.tokens.revoke([_seat_token(old, t["game_id"], t["seat"]) for t in tables])
    return TokenRotatedOut(tournament_id=tournament_id, token=token)


@router.get("/{tournament_id}/events/stream", responses=PROBLEMS)
async def stream(
    tournament_id: TournamentId,
    request: Request,
    c: ClientsDep,
    after: Annotated[int, Query(ge=0, le=MAX_VERSION)] = 0,
) -> Response:
    """The tournament's events live (SSE): rounds started, tables finished, ratings."""
    resume = version_number(request.headers.get("last-event-id", "").strip())
    start_at = after if resume is None else resume
    if await c.game_type(tournament_id) != "tournament":
        raise Problem(404, "unknown_tournament", f"no tournament {tournament_id}")
    return event_stream(c, request, tournament_id, "tournament", Caller(), start_at)


async def _exists(c: Clients, game_id: str) -> bool:
    """Whether the runner has created the table's game yet (just after a round starts)."""
    try:
        await c.game_type(game_id)
    except UnknownGame:
        return False
    return True


def _seat_token(player_token: str, game_id: str, seat: int) -> str:
    """Derived from the player's own token, not stored: asking again gives the same one,
    and nobody without the player token can compute it."""
    digest = hmac.new(player_token.encode(), f"{game_id}:{seat}".encode(), hashlib.sha256)
    return digest.hexdigest()


def _bearer(request: Request) -> str:
    return request.headers.get("authorization", "").partition(" ")[2].strip()


def _cid() -> str:
    return uuid.uuid4().hex

"""Friends and blocks (#54 items 1 and 4, docs/social.md). A player follows others; two
who follow each other are friends, unless one blocks the other. Follows and blocks are
events in the player's own account stream (``Followed``, ``Blocked`` and their undoing);
who follows a player, and whom a player blocks, are indexes beside them. Each friend is
shown with the tables they have open now (from presence) and their most recent games.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Response
from pydantic import BaseModel, Field

from gateway.accounts.routes import PlayerId
from gateway.accounts.service import Accounts
from gateway.clients import Clients
from gateway.http.auth import CallerDep, ClientsDep, player
from gateway.http.openapi import TOKEN_REQUIRED
from gateway.http.problems import problems
from services.accounts.social import online_key

router = APIRouter(tags=["accounts"])
RECENT = 5  # a friend's most recent games shown
PROBLEMS = problems(
    (401, "sign in first (a player's token)"),
    (403, "the token lacks the 'play' (follow) or 'read' (list) scope"),
    (404, "no_player: no such player"),
    (422, "self: not yourself; too_many: the most allowed"),
)


class Table(BaseModel):
    game_id: str
    game: str
    over: bool


class Person(BaseModel):
    player_id: str
    name: str
    friend: bool = Field(description="you follow each other")
    bot_account: bool = Field(False, description="a program's account (docs/bot-api.md)")
    online: bool = Field(False, description="friends: the lobby or a table open now")
    playing: list[Table] = Field(
        default_factory=list, description="friends: tables they have open on a screen now"
    )
    recent: list[Table] = Field(default_factory=list, description="friends: their last games")


def relation(
    path: str,
    make: Callable[[Accounts, str, str], Awaitable[None]],
    undo: Callable[[Accounts, str, str], Awaitable[None]],
    made: str,
    undone: str,
) -> None:
    """``PUT path`` makes a relation to a player (follow, block) and ``DELETE path`` ends
    it; again, either changes nothing. Both answer 204."""

    async def put(player_id: PlayerId, c: ClientsDep, who: CallerDep) -> Response:
        await make(c.accounts, player(who, "play").player_id, player_id)
        return Response(status_code=204)

    async def delete(player_id: PlayerId, c: ClientsDep, who: CallerDep) -> Response:
        await undo(c.accounts, player(who, "play").player_id, player_id)
        return Response(status_code=204)

    common: dict[str, Any] = {"status_code": 204, "responses": PROBLEMS}
    common["openapi_extra"] = TOKEN_REQUIRED
    # Named after what they do: the API document's operation ids (and a typed client's
    # functions) come from the names.
    router.put(path, description=made, name=make.__name__, **common)(put)
    router.delete(path, description=undone, name=undo.__name__, **common)(delete)


relation(
    "/v1/accounts/me/following/{player_id}",
    Accounts.follow,
    Accounts.unfollow,
    "Follow a player (again: nothing changes). Two players who follow each other are friends.",
    "Stop following a player (one you do not follow: nothing changes).",
)
relation(
    "/v1/accounts/me/blocks/{player_id}",
    Accounts.block,
    Accounts.unblock,
    "Block a player (again: nothing changes): the two of you are no friends, see none of "
    "each other's chat, send no challenges, and quick play never seats you at one table, "
    "whoever blocked whom; you stop following them.",
    "Stop blocking a player.",
)


class Friends(BaseModel):
    friends: list[Person] = Field(description="you follow each other")
    following: list[Person] = Field(description="everyone you follow")
    followers: list[Person] = Field(description="everyone who follows you")


@router.get(
    "/v1/accounts/me/friends",
    response_model=Friends,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def friends(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Your friends (with the tables they are at now and their last games), everyone
    you follow and everyone who follows you. Erased accounts are left out."""
    me = player(who, "read")
    state = await c.accounts.load(me.player_id)
    following, followers = set(state.following), await c.accounts.followers(me.player_id)
    entries = await c.accounts.entries(sorted(following | followers))
    names = {p: e["name"] for p, e in entries.items()}
    both = following & followers
    apart = set(state.blocking) | await c.accounts.blocked_by(me.player_id, sorted(both))
    mutual = sorted(p for p in both - apart if p in names)
    tables = await _tables(c, mutual)

    def person(p: str) -> dict[str, Any]:
        out: dict[str, Any] = {"player_id": p, "name": names[p], "friend": p in mutual}
        out["bot_account"] = bool(entries[p].get("bot"))
        return out | tables.get(p, {})

    by_name = sorted(names, key=lambda p: names[p].lower())
    return {
        "friends": [person(p) for p in by_name if p in mutual],
        "following": [person(p) for p in by_name if p in following],
        "followers": [person(p) for p in by_name if p in followers],
    }


async def _tables(c: Clients, players: list[str]) -> dict[str, dict[str, Any]]:
    """Each player's last games, those of them they have a live stream open on, and
    whether they are online (at a table, or with the lobby open)."""
    recent = {p: [g for g, _ in await c.accounts.games(p, RECENT)] for p in players}
    ids = sorted({g for games in recent.values() for g in games})
    prefix = c.settings.store.key_prefix
    pipe = c.store.redis.pipeline(transaction=False)
    for p in players:
        pipe.exists(online_key(prefix, p))
    lobby = dict(zip(players, await pipe.execute(), strict=True)) if players else {}
    if not ids:
        return {p: {"online": bool(lobby[p])} for p in players}
    summaries = await c.read_models.summaries(await c.generation(), ids)
    seats = await c.tokens.players(ids)
    open_now = await _streams(c, ids)
    out = {}
    for p, games in recent.items():
        # A game a moment old may not be in the read models yet: its kind is in its
        # metadata, and a game nobody has finished is not over.
        shown: list[dict[str, Any]] = []
        for g in games:
            summary = summaries.get(g)
            kind = summary["game"] if summary else await c.game_type(g)
            shown.append(
                {"game_id": g, "game": kind, "over": bool(summary and summary["status"]["over"])}
            )
        seat_of = {g: next((s for s, q in seats[g].items() if q == p), None) for g in games}
        playing = [t for t in shown if seat_of[t["game_id"]] in open_now.get(t["game_id"], ())]
        playing = [t for t in playing if not t["over"]]
        out[p] = {"recent": shown, "playing": playing, "online": bool(lobby[p] or playing)}
    return out


async def _streams(c: Clients, game_ids: list[str]) -> dict[str, set[int]]:
    """The seats of each game with a live stream open now (presence's marks)."""
    presence = c.live.presence
    if presence is None:
        return {}
    now = int(time.time() * 1000)
    pipe = c.store.redis.pipeline(transaction=False)
    for g in game_ids:
        pipe.zrangebyscore(presence.keys.streams(g), now - presence.stale_ms, "+inf")
    found = await pipe.execute()
    return {
        g: {int(m.decode().split(":", 1)[0]) for m in marks}
        for g, marks in zip(game_ids, found, strict=True)
    }


class Blocks(BaseModel):
    blocking: list[Person] = Field(description="everyone you block")


@router.get(
    "/v1/accounts/me/blocks",
    response_model=Blocks,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def blocks(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Everyone you block (erased accounts left out)."""
    me = player(who, "read")
    blocking = sorted((await c.accounts.load(me.player_id)).blocking)
    names = await c.accounts.names(blocking)
    shown = sorted((p for p in blocking if p in names), key=lambda p: names[p].lower())
    return {"blocking": [{"player_id": p, "name": names[p], "friend": False} for p in shown]}

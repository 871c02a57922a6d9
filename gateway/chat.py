"""Table chat (#54 item 3, docs/social.md).

Two chats per table: the **players'** (its seated players) and the **spectators'**
(signed-in players not seated there). While the game runs neither reaches the other
side: spectators see the game late (the spectator delay), so the players' talk could
tell them the present, and theirs could tell the players what spectators see. Once the
game is over both are open to everyone.

A message is plain text that passes the same rules as names (no control or bidi
characters, no letters that imitate another script), at most 200 characters, or one of
the preset phrases. It is sealed with its author's account key (crypto-shredding:
erasing the account makes every copy unreadable) and kept in a Redis stream of its own
per table and audience (never the game's log) for RAFFE_CHAT_RETENTION_S. It reaches the
table's live streams as ``chat`` frames through one pub/sub channel that every gateway's
live hub follows. Neither side of a block sees the other's messages.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal, cast

import orjson
from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from gateway.accounts.tokens import Caller
from gateway.clients import Clients
from gateway.games.routes import GameId
from gateway.http.auth import CallerDep, ClientsDep, player
from gateway.http.openapi import TOKEN_OPTIONAL, TOKEN_REQUIRED
from gateway.http.problems import Problem, problems
from gateway.live.channels import chat_channel
from services.accounts import sealing, streams
from services.accounts.social import apart_from
from services.kernel.commands import Strict
from services.kernel.errors import InvalidArgument
from services.kernel.names import clean_name

router = APIRouter(tags=["chat"])
Audience = Literal["players", "spectators"]
MAX_TEXT = 200
PER_WINDOW, WINDOW_S = 5, 10  # messages a player may send a table in a window
KEPT = 500  # the newest messages of a chat kept (its stream's length)
PRESETS = {
    "hello": "Hello!",
    "good_luck": "Good luck!",
    "your_turn": "Your turn",
    "well_played": "Well played!",
    "thanks": "Thanks!",
    "good_game": "Good game",
}
PROBLEMS = problems(
    (401, "a player's token is needed to chat"),
    (403, "not_seated / seated: that chat is the players' or the spectators'; muted"),
    (404, "no such game"),
    (422, "bad_text: empty, too long, or not plain text; bad_preset"),
    (429, "too many messages (Retry-After)"),
)


class ChatIn(Strict):
    audience: Audience = "players"
    text: str | None = Field(None, max_length=1000, description=f"up to {MAX_TEXT} characters")
    preset: str | None = Field(None, description=f"instead of text: {', '.join(PRESETS)}")


class Message(BaseModel):
    id: str
    audience: Audience
    player_id: str
    name: str
    bot_account: bool = Field(False, description="a program's account (docs/bot-api.md)")
    seat: int = Field(description="the author's seat (players' chat); -1 for a spectator")
    text: str
    preset: str | None = None
    time_ms: int


class Chat(BaseModel):
    messages: list[Message] = Field(description="oldest first")


def chat_key(c: Clients, game_id: str, audience: str) -> str:
    return f"{c.settings.store.key_prefix}:chat:{game_id}:{audience}"


def _text(body: ChatIn) -> tuple[str, str | None]:
    if body.preset is not None:
        if body.preset not in PRESETS or body.text is not None:
            raise Problem(422, "bad_preset", f"a preset is one of {', '.join(PRESETS)}")
        return PRESETS[body.preset], body.preset
    try:
        return clean_name(body.text or "", MAX_TEXT), None
    except InvalidArgument as error:
        raise Problem(422, "bad_text", str(error).replace("a name", "a message")) from None


async def _seat_of(c: Clients, game_id: str, who: Caller) -> int:
    """The caller's seat at the game (their account's or their seat token's), or -1."""
    if who.seat >= 0 and who.game_id == game_id:
        return who.seat
    if not who.player_id:
        return -1
    seats = (await c.tokens.players([game_id]))[game_id]
    return next((s for s, p in seats.items() if p == who.player_id), -1)


async def _over(c: Clients, game_id: str) -> bool:
    engine = await c.engine_for(game_id)
    _, view, _ = await engine.view(game_id, -1)
    return bool(view["status"]["over"])


async def _limit(c: Clients, game_id: str, player_id: str) -> None:
    key = f"{c.settings.store.key_prefix}:chat-rate:{game_id}:{player_id}"
    pipe = c.store.redis.pipeline(transaction=False)
    pipe.incr(key)
    pipe.expire(key, WINDOW_S, nx=True)
    pipe.ttl(key)
    sent, _, left = await pipe.execute()
    if int(sent) > PER_WINDOW:
        raise Problem(
            429,
            "too_many_messages",
            f"at most {PER_WINDOW} messages in {WINDOW_S} s",
            retry_after=max(1, int(left)),
        )


@router.post(
    "/v1/games/{game_id}/chat",
    status_code=201,
    response_model=Message,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def say(game_id: GameId, body: ChatIn, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Say something at a table: to its players (you hold a seat there) or to its
    spectators (you do not). It reaches the table's live streams as a ``chat`` frame."""
    me = player(who, "play")
    await c.game_type(game_id)
    text, preset = _text(body)
    seat = await _seat_of(c, game_id, me)
    if body.audience == "players" and seat < 0:
        raise Problem(403, "not_seated", "the players' chat is for the table's players")
    if body.audience == "spectators" and seat >= 0 and not await _over(c, game_id):
        raise Problem(403, "seated", "spectators' chat is not for the players while it runs")
    now = int(time.time() * 1000)
    author = await c.accounts.load(me.player_id)
    muted = author.held("mute", now)
    if muted is not None:
        raise Problem(403, "muted", f"a moderator muted you: {muted[0]}")
    shadow = author.held("shadow_mute", now) is not None  # told nothing: seen by nobody else
    await _limit(c, game_id, me.player_id)
    key = await streams.sealing_key(c.store, me.player_id)
    if key is None:
        raise Problem(401, "account_erased", "this account was erased")
    fields = {
        "player": me.player_id,
        "seat": str(seat if body.audience == "players" else -1),
        "text": sealing.seal(key, me.player_id, text),
        "preset": preset or "",
        "time": str(now),
        "shadow": "1" if shadow else "",
    }
    stream = chat_key(c, game_id, body.audience)
    pipe = c.store.redis.pipeline(transaction=False)
    pipe.xadd(stream, cast(Any, fields), maxlen=KEPT, approximate=True)
    pipe.expire(stream, c.settings.chat_retention_s)
    entry_id = (await pipe.execute())[0]
    names = await c.accounts.names([me.player_id])
    message = {
        "id": entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id),
        "audience": body.audience,
        "player_id": me.player_id,
        "name": names.get(me.player_id, ""),
        "seat": int(fields["seat"]),
        "text": text,
        "preset": preset,
        "time_ms": now,
    }
    hidden = await apart_from(c.store.redis, c.settings.store.key_prefix, me.player_id)
    # The seats of players kept apart too: a seat's stream may be opened with its seat
    # token, which names no account.
    seats = (await c.tokens.players([game_id]))[game_id]
    live = {
        "game_id": game_id,
        "message": message,
        "hide_from": sorted(hidden),
        "hide_seats": sorted(s for s, p in seats.items() if p in hidden),
    }
    if not shadow:
        await c.store.redis.publish(chat_channel(c.settings.store.key_prefix), orjson.dumps(live))
    return message


@router.get(
    "/v1/games/{game_id}/chat",
    response_model=Chat,
    responses=PROBLEMS,
    openapi_extra=TOKEN_OPTIONAL,
)
async def read(
    game_id: GameId,
    c: ClientsDep,
    who: CallerDep,
    audience: Annotated[Audience, Query()] = "players",
) -> dict[str, Any]:
    """A table's chat, oldest first: the players' to its players, the spectators' to
    everyone else, both to everyone once the game is over; without the messages of
    anyone you block or who blocks you, and of erased accounts."""
    await c.game_type(game_id)
    seat = await _seat_of(c, game_id, who)
    if not await _over(c, game_id):
        if audience == "players" and seat < 0:
            raise Problem(403, "not_seated", "the players' chat is for the table's players")
        if audience == "spectators" and seat >= 0:
            raise Problem(403, "seated", "spectators' chat is not for the players while it runs")
    raw = cast(
        list[tuple[bytes, dict[bytes, bytes]]],
        await c.store.redis.xrange(chat_key(c, game_id, audience)),
    )
    prefix = c.settings.store.key_prefix
    hidden = await apart_from(c.store.redis, prefix, who.player_id) if who.player_id else set()
    entries = [(i, {k.decode(): v.decode() for k, v in f.items()}) for i, f in raw]
    authors = sorted({f["player"] for _, f in entries} - hidden)
    people = await c.accounts.entries(authors)
    keys = {a: await streams.sealing_key(c.store, a) for a in authors}
    out = []
    for entry_id, f in entries:
        author = f["player"]
        text = sealing.open_sealed(keys.get(author), author, f["text"]) if author in keys else None
        if text is None:  # erased (its key gone) or kept apart by a block
            continue
        if f.get("shadow") and author != who.player_id:  # shadow-muted: its author's only
            continue
        out.append(
            {
                "id": entry_id.decode(),
                "audience": audience,
                "player_id": author,
                "name": people.get(author, {}).get("name", ""),
                "bot_account": bool(people.get(author, {}).get("bot")),
                "seat": int(f["seat"]),
                "text": text,
                "preset": f["preset"] or None,
                "time_ms": int(f["time"]),
            }
        )
    return {"messages": out}

"""A player's account stream (docs/bot-api.md): ``GET /v1/accounts/me/events``. It opens
with the state of every open challenge and game in progress, then sends each change
from the player's feed (services.accounts.feed): a challenge issued or answered, a seat
taken (quick play, a challenge accepted, a create or a claim), a game over. Live frames
carry an id; reconnecting with it (Last-Event-ID, or ``after``) sends the opening state
again and then every change after that id, so a dropped connection loses nothing."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator
from typing import Annotated, Any, cast

import orjson
from fastapi import APIRouter, Header, Query, Request

from gateway.accounts.awaiting import games_in_play
from gateway.accounts.tokens import TICKET_S, Caller
from gateway.challenges import shown_challenge
from gateway.clients import Clients
from gateway.games.models import StreamTicket
from gateway.http.auth import CallerDep, ClientsDep, player
from gateway.http.openapi import TOKEN_REQUIRED
from gateway.http.problems import Problem, problems
from gateway.live.feeds import StreamLock
from gateway.live.formats import Format, chosen, media_type, shaped, sse_frame
from gateway.live.frames import PING
from gateway.live.stream import LiveStream
from gateway.live.watched import Viewer
from services.accounts.feed import feed_key
from services.accounts.rules import BOT_SCOPE
from services.challenges import streams as challenges

router = APIRouter(tags=["accounts"])
READ_AT_ONCE = 100  # feed entries a read takes
_releasing: set[asyncio.Task[None]] = set()  # locks being released (kept referenced)


def until_expiry(viewer: Viewer, heartbeat_s: float) -> float:
    """How long an account stream may stay quiet: a heartbeat, or less if its token
    expires sooner. (Game streams are pinged and expired by the hub's one clock,
    gateway.live.beats; an account stream, one a bot or page, keeps its own.)"""
    if not viewer.expires_at:
        return heartbeat_s
    return max(0.0, min(heartbeat_s, viewer.expires_at - time.time()))


FEED_ID = r"^\d{1,20}-\d{1,20}$"


def _challenge_open(ch: Any, now_ms: int) -> bool:
    return bool(ch.state == "open" and ch.expires_ms > now_ms)


async def opening(c: Clients, player_id: str) -> list[bytes]:
    """The state a stream opens with: open challenges, then games in progress."""
    out = []
    now_ms = int(time.time() * 1000)
    for challenge_id in await challenges.of_player(c.store, player_id):
        ch = await challenges.load(c.store, challenge_id)
        if _challenge_open(ch, now_ms):
            shown = await shown_challenge(c, challenge_id, ch)
            out.append(sse_frame("challenge", orjson.dumps(shown)))
    for g in await games_in_play(c, player_id, c.settings.my_games_scan):
        if not g.over:
            body = {"game_id": g.game_id, "game": g.summary["game"], "seat": g.seat}
            out.append(sse_frame("game_start", orjson.dumps(body)))
    return out


async def rendered(c: Clients, frame_id: str, entry: dict[str, Any]) -> bytes:
    """A feed entry as its frame: the state of what it points at, as sent now."""
    kind = str(entry.get("type", ""))
    if kind == "challenge":
        challenge_id = str(entry["challenge_id"])
        ch = await challenges.load(c.store, challenge_id)
        if not ch.state:
            return b""
        shown = await shown_challenge(c, challenge_id, ch)
        return sse_frame("challenge", orjson.dumps(shown), frame_id)
    if kind in ("game_start", "game_end"):
        game_id = str(entry["game_id"])
        body = {"game_id": game_id, "game": await c.store.game_type(game_id), "seat": entry["seat"]}
        return sse_frame(kind, orjson.dumps(body), frame_id)
    return b""


async def latest(c: Clients, key: str) -> str:
    """The id of the feed's last entry ("0-0" for none): live frames come after it."""
    found = cast(list[tuple[bytes, Any]], await c.store.redis.xrevrange(key, count=1))
    return found[0][0].decode() if found else "0-0"


async def account_frames(
    c: Clients, who: Caller, after: str, lock: StreamLock | None
) -> AsyncGenerator[bytes, None]:
    hub, heartbeat = c.live, c.settings.sse_heartbeat_s
    key = feed_key(c.settings.store.key_prefix, who.player_id)
    viewer = Viewer(-1, who.token_hash, who.expires_at, False, who.player_id)
    hub.feeds.add(viewer)
    hub.streams_of.add(viewer)
    try:
        newest = await latest(c, key)  # taken first: nothing falls between
        # A resume id past the feed's end (one this stream never sent) would skip what
        # comes next: it starts at the end instead.
        last = after if after and _order(after) <= _order(newest) else newest
        opened = sse_frame("opened", orjson.dumps({"after": last}))
        yield b"".join([*await opening(c, who.player_id), opened])
        while True:
            found = await c.store.redis.xrange(key, min=f"({last}", count=READ_AT_ONCE)
            entries = cast(list[tuple[bytes, dict[bytes, bytes]]], found)
            if entries:
                chunk = []
                for raw_id, fields in entries:
                    last = raw_id.decode()
                    chunk.append(await rendered(c, last, orjson.loads(fields[b"e"])))
                if any(chunk):
                    yield b"".join(chunk)
                continue
            quiet = until_expiry(viewer, heartbeat)
            try:
                async with asyncio.timeout(quiet):
                    item = await viewer.queue.get()
            except TimeoutError:
                if quiet < heartbeat:  # the token expired: so does its stream
                    return
                if lock is not None:
                    await lock.renew()
                yield PING
                continue
            if item is None:
                return
            if item[1]:  # the gateway drains: its last frame, then the end
                yield item[0]
                return
    finally:
        hub.feeds.remove(viewer)
        hub.streams_of.remove(viewer)
        if lock is not None:
            letting_go(lock)


@router.get(
    "/v1/accounts/me/events",
    responses=problems(
        (401, "no token, or a revoked one"),
        (403, "the token lacks the read scope"),
        (429, "bot_streams: a bot account's stream is open already (Retry-After)"),
    ),
    openapi_extra=TOKEN_REQUIRED,
)
async def account_events(
    request: Request,
    c: ClientsDep,
    who: CallerDep,
    after: Annotated[
        str | None,
        Query(pattern=FEED_ID, description="the last frame id you had (or Last-Event-ID)"),
    ] = None,
    last_event_id: Annotated[str | None, Header()] = None,
    format: Annotated[
        Format | None,
        Query(description="sse or ndjson; else the Accept header's choice (SSE by default)"),
    ] = None,
    ticket: Annotated[
        str | None, Query(max_length=64, description="a stream ticket (browsers)")
    ] = None,
) -> LiveStream:
    """Your account's live stream, as Server-Sent Events or new-line delimited JSON:
    first every open challenge (``challenge``) and game in progress (``game_start``),
    then ``opened`` (that was all of it), then each change: ``challenge`` (issued,
    accepted with its ``game_id``, declined, cancelled), ``game_start`` (you were seated:
    quick play, a challenge, a create or a claim) and ``game_end``. Reconnect with the
    last id you had to miss nothing. A bot account holds one at a time (429
    ``bot_streams``)."""
    if ticket is not None:  # a browser's EventSource sends no Authorization header
        found = await c.tokens.resolve_ticket(ticket)
        if found is None or found.game_id:
            raise Problem(401, "bad_ticket", "unknown or expired stream ticket")
        who = found
    me = player(who, "read")
    resume = (last_event_id or "").strip() or after or ""
    if resume and not _feed_id(resume):
        raise Problem(422, "bad_event_id", "resume from an id this stream sent")
    release = c.live.admit(request.state.client_address)
    lock = None
    if BOT_SCOPE in me.scopes:
        ttl_s = 3 * c.settings.sse_heartbeat_s  # a dead gateway's lock lapses after this
        lock = StreamLock(c.store.redis, c.settings.store.key_prefix, me.player_id, ttl_s)
        try:
            await lock.take()
        except Problem:
            release()
            raise

    def ended() -> None:
        """Its admission back, and a bot's lock let go, even if the frames never started
        (their own ``finally`` lets it go too: a release is by owner, so twice is once)."""
        release()
        if lock is not None:
            letting_go(lock)

    fmt = chosen(request, format)
    frames = shaped(account_frames(c, me, resume, lock), fmt)
    # As a game's stream: its head through the middlewares, its body outside them for as
    # long as it lives (gateway.live.stream, decision 0060).
    return LiveStream(frames, media_type(fmt), ended)


def letting_go(lock: StreamLock) -> None:
    """Release a bot's stream lock in a task (a cancelled generator may not await any
    more); Redis failing leaves it to lapse (three heartbeats)."""

    async def release() -> None:
        with contextlib.suppress(Exception):
            await lock.release()

    task = asyncio.get_running_loop().create_task(release())
    _releasing.add(task)
    task.add_done_callback(_releasing.discard)


def _order(feed_id: str) -> tuple[int, int]:
    ms, _, seq = feed_id.partition("-")
    return int(ms), int(seq or 0)


def _feed_id(text: str) -> bool:
    ms, dash, seq = text.partition("-")
    return bool(dash) and ms.isdigit() and seq.isdigit() and len(ms) <= 20 and len(seq) <= 20


@router.post(
    "/v1/accounts/me/stream-tickets",
    status_code=201,
    response_model=StreamTicket,
    responses=problems((401, "no token, or a revoked one"), (403, "lacks the read scope")),
    openapi_extra=TOKEN_REQUIRED,
)
async def account_stream_ticket(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """A ticket for your account stream, for clients that cannot send headers with it (a
    browser's EventSource): open ``/v1/accounts/me/events?ticket=…`` within
    ``expires_in`` seconds."""
    me = player(who, "read")
    return {"ticket": await c.tokens.ticket(me), "expires_in": TICKET_S}

"""A game's live stream's fast path: ``GET /v1/games/{id}/events/stream`` answered here,
inside the guard (rate limits, metrics, the request's deadline until the answer starts)
and CORS, without FastAPI's routing, dependency solving and StreamingResponse.

A stream is held for hours, mostly idle (turn-based tables, docs/turn-based.md): what
those layers keep per request (three exit stacks, exception wrappers, a task group) was
a third of a stream's memory in the gateway, and every frame and ping crossed their
wrappers (docs/performance.md, "idle streams"). The checks are the route's own
(gateway.games.live_stream) and errors render with the app's handlers. A query the fast
path does not read exactly as the route would (a malformed number, an unknown format, a
ticket too long) goes to the route unchanged, which explains it as always, and /docs
still documents the route.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.games.fast_path import game_in_path
from gateway.games.live_stream import STREAM_ROUTE, stream_start
from gateway.http.auth import bearer
from gateway.http.guard import ROUTE_LABEL
from gateway.http.problems import Problem, on_problem, on_raffe_error
from gateway.live.formats import Format, chosen_by_accept, media_type, shaped
from gateway.live.stream import relay
from services.core.errors import RaffeError
from services.core.eventstore.keys import GAME_ID_CHARS

STREAM_PATH = re.compile(f"/v1/games/({GAME_ID_CHARS})/events/stream")
DIGITS = re.compile("[0-9]{1,13}")
MAX_VERSION = 10**12  # as the route's Query(le=...)
# What pydantic reads as a bool in a query (lax mode), and nothing else.
BOOLS = {
    **dict.fromkeys(("1", "on", "t", "true", "y", "yes"), True),
    **dict.fromkeys(("0", "off", "f", "false", "n", "no"), False),
}


def _headers(fmt: Format) -> list[tuple[bytes, bytes]]:
    """The answer's headers exactly as the route's StreamingResponse sends them."""
    answer = StreamingResponse(iter(()), media_type=media_type(fmt))
    answer.headers["X-Accel-Buffering"] = "no"
    return answer.raw_headers


HEADERS: dict[str, list[tuple[bytes, bytes]]] = {f: _headers(f) for f in ("sse", "ndjson")}


@dataclass(frozen=True)
class Asked:
    """A stream request's query as the route would read it."""

    after: int = 0
    views: bool = False
    format: Format | None = None
    ticket: str | None = None


class StreamFastPath:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        game_id = game_in_path(scope, "GET", STREAM_PATH)
        asked = _asked(scope["query_string"]) if game_id else None
        if game_id is None or asked is None:
            await self.app(scope, receive, send)
            return
        scope[ROUTE_LABEL] = STREAM_ROUTE
        try:
            await _stream(scope, receive, send, game_id, asked)
        except Problem as error:
            await (await on_problem(Request(scope), error))(scope, receive, send)
        except RaffeError as error:
            await (await on_raffe_error(Request(scope), error))(scope, receive, send)


async def _stream(scope: Scope, receive: Receive, send: Send, game_id: str, asked: Asked) -> None:
    """The route's checks, then the hub's frames relayed (a Problem before the first)."""
    c: Any = scope["app"].state.clients
    headers = Headers(scope=scope)
    who = await bearer(c, headers.get("authorization", ""), game_id=game_id)
    last_id = headers.get("last-event-id")
    who, game_type, start = await stream_start(c, game_id, who, asked.after, last_id, asked.ticket)
    fmt = asked.format or chosen_by_accept(headers.get("accept", ""))
    release = c.live.admit(scope["state"]["client_address"])
    frames = c.live.frames(game_id, game_type, who, start, asked.views)
    try:
        await relay(frames if fmt == "sse" else shaped(frames, fmt), HEADERS[fmt], receive, send)
    finally:
        await frames.aclose()  # shaped's closing leaves the hub's to the collector
        release()


def _asked(raw: bytes) -> Asked | None:
    """The query as the route reads it (the last of a repeated name; names it does not
    know ignored), or None where the route would refuse it or read it otherwise."""
    query = dict(parse_qsl(raw.decode("latin-1"), keep_blank_values=True))
    after, views = query.get("after", "0"), query.get("views", "false").lower()
    fmt, ticket = query.get("format"), query.get("ticket")
    if not DIGITS.fullmatch(after) or int(after) > MAX_VERSION or views not in BOOLS:
        return None
    if fmt not in (None, "sse", "ndjson") or (ticket is not None and len(ticket) > 64):
        return None
    return Asked(int(after), BOOLS[views], fmt, ticket)  # type: ignore[arg-type]

"""The live stream route's fast path: a valid ``GET /v1/games/{id}/events/stream`` is
served here, inside the guard (rate limits, deadline, metrics) and CORS, without
FastAPI's exception layers, routing and dependency solving.

A stream lives for hours, and every frame it sends (most often a heartbeat's ping)
passed through each of those layers' ``send`` wrappers, whose coroutine frames it also
kept alive: ~25 frames deep per stream. Here it is half that (docs/decisions/0058),
and only while the stream opens: its body then runs outside every middleware
(gateway.live.stream, docs/decisions/0060).

It runs what the route runs (``gateway.games.live_stream.open_stream``) and renders
refusals with the app's own handlers. A request whose query it does not take as it is
(a parameter out of range, twice, or of another shape) goes to the app unchanged, so
FastAPI explains it as on every other route, and /docs still documents the route.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.games.commands import version_number
from gateway.games.fast_path import game_in_path
from gateway.games.live_stream import STREAM_ROUTE, open_stream
from gateway.http.auth import bearer
from gateway.http.guard import ROUTE_LABEL
from gateway.http.problems import Problem, on_problem, on_raffe_error
from gateway.live.formats import Format
from services.core.errors import RaffeError
from services.core.eventstore.keys import GAME_ID_CHARS

STREAM_PATH = re.compile(f"/v1/games/({GAME_ID_CHARS})/events/stream")
# As pydantic reads a bool from a query string.
BOOLS = {
    **dict.fromkeys(("1", "on", "t", "true", "y", "yes"), True),
    **dict.fromkeys(("0", "off", "f", "false", "n", "no"), False),
}
FORMATS: dict[str, Format] = {"sse": "sse", "ndjson": "ndjson"}
TICKET_CHARS = 64


class Query:
    """The stream's query parameters, as the route would read them."""

    def __init__(self, raw: bytes) -> None:
        pairs = parse_qsl(raw.decode("latin-1"), keep_blank_values=True)
        self.values = dict(pairs)
        self.taken = len(self.values) == len(pairs)  # a parameter twice: the route's to say
        self.after, self.views, self.ticket = 0, False, self.values.get("ticket")
        self.format: Format | None = None
        if self.ticket is not None and len(self.ticket) > TICKET_CHARS:
            self.taken = False
        if "after" in self.values:
            after = version_number(self.values["after"])
            self.taken &= after is not None
            self.after = after or 0
        if "views" in self.values:
            views = BOOLS.get(self.values["views"].lower())
            self.taken &= views is not None
            self.views = bool(views)
        if "format" in self.values:
            fmt = FORMATS.get(self.values["format"])
            self.taken &= fmt is not None
            self.format = fmt


class StreamFastPath:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        game_id = game_in_path(scope, "GET", STREAM_PATH)
        query = Query(scope.get("query_string", b"")) if game_id else None
        if game_id is None or query is None or not query.taken:
            await self.app(scope, receive, send)
            return
        scope[ROUTE_LABEL] = STREAM_ROUTE
        headers = Headers(scope=scope)
        clients = scope["app"].state.clients
        request = Request(scope)
        response: Response
        try:
            who = await bearer(clients, headers.get("authorization", ""), game_id=game_id)
            last_event_id = headers.get("last-event-id")
            args = (query.after, last_event_id, query.ticket, query.views, query.format)
            response = await open_stream(clients, request, game_id, who, *args)
        except Problem as error:
            response = await on_problem(request, error)
        except RaffeError as error:
            response = await on_raffe_error(request, error)
        del request, headers, query  # nothing of the request is kept for the stream's hours
        await response(scope, receive, send)

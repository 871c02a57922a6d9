"""The command route's fast path: a valid ``POST /v1/games/{id}/commands`` is answered
here, inside the guard (rate limits, body caps, metrics) and CORS, without FastAPI's
exception layers, routing and dependency solving (their share of the gateway's CPU per
command: docs/decisions, "command fast paths").

It runs what the route runs (``gateway.games.commands.run_command``) and renders errors with the
app's own handlers. A request it does not take on as it is (another path or method, a
body that is not a valid command) goes to the app unchanged, so every refusal reads
exactly as on every other route and /docs still documents the route.
"""

from __future__ import annotations

import re

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.games.commands import COMMAND_ROUTE, run_command
from gateway.games.models import CommandIn
from gateway.http.guard import ROUTE_LABEL, read_body, replaying
from gateway.http.problems import Problem, on_problem, on_raffe_error
from services.core.codec import loads
from services.core.errors import RaffeError
from services.core.eventstore.keys import GAME_ID_CHARS

COMMAND_PATH = re.compile(f"/v1/games/({GAME_ID_CHARS})/commands")


class CommandFastPath:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = game_in_path(scope, "POST", COMMAND_PATH)
        if match is None:
            await self.app(scope, receive, send)
            return
        body = await read_body(receive) or b""  # uncapped: the guard outside capped it
        command = _valid_command(body)
        if command is None:  # FastAPI's route explains what is wrong, as it always does
            await self.app(scope, replaying(body, receive), send)
            return
        scope[ROUTE_LABEL] = COMMAND_ROUTE
        headers = Headers(scope=scope)
        clients = scope["app"].state.clients
        try:
            response = await run_command(
                clients, match, command, headers.get("authorization", ""), headers.get("if-match")
            )
        except Problem as error:
            response = await on_problem(Request(scope), error)
        except RaffeError as error:
            response = await on_raffe_error(Request(scope), error)
        await response(scope, receive, send)


def game_in_path(scope: Scope, method: str, pattern: re.Pattern[str]) -> str | None:
    """The game id of a ``method`` request whose path (under the app's root) is
    ``pattern``'s, else None: what a fast path takes on."""
    if scope["type"] != "http" or scope["method"] != method:
        return None
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    found = pattern.fullmatch(path)
    return found[1] if found else None


def _valid_command(body: bytes) -> CommandIn | None:
    """The body as FastAPI would validate it (parsed JSON, then the model), or None."""
    try:
        return CommandIn.model_validate(loads(body))
    except ValueError:  # orjson's JSONDecodeError and pydantic's ValidationError are both
        return None

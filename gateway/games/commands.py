"""What a command does at the gateway, one function for both doors it comes in by: the
FastAPI route (``POST /v1/games/{id}/commands``, which documents it and explains invalid
bodies) and the fast path in front of the app (gateway.games.fast_path), which answers valid
ones without FastAPI's routing. Neither imports the other."""

from __future__ import annotations

import re

from starlette.responses import Response

from gateway.clients import Clients
from gateway.games.models import CommandIn
from gateway.http.auth import acting_seat, bearer
from gateway.http.problems import Problem

MAX_VERSION = 10**12  # far beyond any game; keeps numbers inside what gRPC carries
DIGITS = re.compile("[0-9]{1,13}")
COMMAND_ROUTE = "/v1/games/{game_id}/commands"  # the route's path: metrics label both doors by it


def version_number(raw: str) -> int | None:
    """A version written as ASCII digits, else None. (str.isdigit also takes "²" and
    other digits int() refuses.)"""
    return int(raw) if DIGITS.fullmatch(raw) and int(raw) <= MAX_VERSION else None


def if_match_version(raw: str | None) -> int:
    """The version an If-Match header pins (0: none), or a 422 bad_if_match."""
    if raw is None:
        return 0
    value = version_number(raw.strip().removeprefix("W/").strip('"'))
    if value is None or value < 1:
        raise Problem(422, "bad_if_match", 'If-Match carries the version you saw, e.g. "12"')
    return value


async def run_command(
    c: Clients, game_id: str, body: CommandIn, authorization: str, if_match: str | None
) -> Response:
    """The caller's seat acts: the engine validates the command with its game's own model
    and answers with the events, view and legal commands the caller may see."""
    seat = acting_seat(game_id, await bearer(c, authorization, game_id=game_id))
    engine = await c.engine_for(game_id)
    # A null field counts as left out (as the gateway's models used to read it).
    command = {k: v for k, v in body.command.items() if v is not None}
    version, reply, view = await engine.execute_json(
        game_id, seat, command, body.command_id, if_match_version(if_match)
    )
    c.recent_views.remember(game_id, seat, version, view)
    # The engine's JSON goes out as it came (CommandResult documents its shape): parsing
    # the view and events only to serialise them again was a tenth of the gateway's work.
    return Response(reply, media_type="application/json", headers={"ETag": f'"{version}"'})

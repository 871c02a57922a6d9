"""A game's live stream, opened for a caller: what ``GET /v1/games/{id}/events/stream``
does, shared by its FastAPI route (which documents it and explains bad input) and its
fast path (gateway.games.stream_fast_path, which serves the valid requests)."""

from __future__ import annotations

from fastapi import Request

from gateway.accounts.tokens import Caller
from gateway.clients import Clients
from gateway.games.commands import version_number
from gateway.http.auth import seat_in
from gateway.http.problems import Problem
from gateway.live.formats import Format, chosen
from gateway.live.stream import LiveStream, event_stream
from services.kernel.game import SPECTATOR

STREAM_ROUTE = "/v1/games/{game_id}/events/stream"  # metrics label both doors by it


async def check_hold(c: Clients, game_id: str, seat: int) -> None:
    """Anyone outside a held duplicate table (gateway.live.holds) is refused its game."""
    if seat == SPECTATOR and await c.holds.held(game_id):
        raise Problem(
            403,
            "held",
            "this table's deal is still played at other tables of its round: its game "
            "shows once they have all finished",
        )


async def open_stream(
    c: Clients,
    request: Request,
    game_id: str,
    who: Caller,
    after: int,
    last_event_id: str | None,
    ticket: str | None,
    views: bool,
    format: Format | None,
) -> LiveStream:
    """The stream's answer for ``who`` (or the ticket's holder), from ``after`` or the
    Last-Event-ID header; a Problem if it may not be opened."""
    if ticket is not None:
        found = await c.tokens.resolve_ticket(ticket)
        if found is None:
            raise Problem(401, "bad_ticket", "unknown or expired stream ticket")
        who = found
    await check_hold(c, game_id, seat_in(game_id, who))
    game_type = await c.game_type(game_id)
    resume = version_number(last_event_id.strip()) if last_event_id else None
    start = after if resume is None else resume
    fmt = chosen(request, format)
    return event_stream(c, request, game_id, game_type, who, start, views, fmt)

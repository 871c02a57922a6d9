"""What opening a game's live stream (``GET /v1/games/{id}/events/stream``) checks, for
the route and its fast path (gateway.games.stream_fast_path) alike: the ticket a browser
sends instead of a token, a held duplicate table, that the game exists, and where the
stream resumes."""

from __future__ import annotations

from gateway.accounts.tokens import Caller
from gateway.clients import Clients
from gateway.games.commands import version_number
from gateway.http.auth import seat_in
from gateway.http.problems import Problem
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


async def stream_start(
    c: Clients,
    game_id: str,
    who: Caller,
    after: int,
    last_event_id: str | None,
    ticket: str | None,
) -> tuple[Caller, str, int]:
    """Who watches (a ticket's caller, if one is given), the game's type and the version
    the stream starts after (Last-Event-ID before ``after``); a Problem if refused."""
    if ticket is not None:
        found = await c.tokens.resolve_ticket(ticket)
        if found is None:
            raise Problem(401, "bad_ticket", "unknown or expired stream ticket")
        who = found
    await check_hold(c, game_id, seat_in(game_id, who))
    game_type = await c.game_type(game_id)
    resume = version_number(last_event_id.strip()) if last_event_id else None
    return who, game_type, after if resume is None else resume

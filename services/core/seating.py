"""Who holds a game's seats: a hash beside the game's stream (``<game key>:seats``),
shared by the gateway (seat tokens, players seated at creation or by a claim) and the
workers that read it (the ratings rater, the matchmaker).

Fields: ``kind:<seat>`` (human, open, bot), ``token:<seat>`` (the seat token's hash),
``player:<seat>`` (the player's id) and ``seat-of:<player>`` (their seat)."""

from __future__ import annotations

from typing import Any, cast

from services.core.eventstore import EventStore


def seats_key(store: EventStore, game_id: str) -> str:
    return store.keys.seats(game_id)


def players_in(raw: dict[bytes, bytes]) -> dict[int, str]:
    """Seat -> player id, from a seats hash as HGETALL gives it."""
    return {
        int(k.decode()[len("player:") :]): v.decode()
        for k, v in raw.items()
        if k.startswith(b"player:")
    }


async def seated_players(store: EventStore, game_id: str) -> dict[int, str]:
    raw = await store.redis.hgetall(seats_key(store, game_id))
    return players_in(cast(dict[bytes, bytes], raw))


def bind_players_calls(pipe: Any, key: str, players: dict[int, str]) -> None:
    """Queue on ``pipe`` the writes that seat each player (seat -> id): a player holds at
    most one seat of a game and a seat one player (HSETNX: the first binding stays)."""
    for seat, player in players.items():
        pipe.hsetnx(key, f"seat-of:{player}", seat)
        pipe.hsetnx(key, f"player:{seat}", player)


def player_games_key(store: EventStore, player: str) -> str:
    """A player's games (a sorted set: game id -> when they sat down, ms)."""
    return f"{store.settings.key_prefix}:player:{player}:games"


def seat_calls(
    pipe: Any,
    store: EventStore,
    game_id: str,
    kinds: list[str],
    players: dict[int, str],
    now_ms: int,
) -> None:
    """Queue the writes that record a new game's seats (kinds, players) and put it in
    each player's games: what a create through the gateway writes, for the matchmaker."""
    key = seats_key(store, game_id)
    for seat, kind in enumerate(kinds):
        pipe.hsetnx(key, f"kind:{seat}", kind)
    bind_players_calls(pipe, key, players)
    for player in players.values():
        pipe.zadd(player_games_key(store, player), {game_id: now_ms}, nx=True)

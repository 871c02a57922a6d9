"""A player's games in play, read from the read models: which await them (it is their
turn), soonest time out first, and how many turn-based games they hold, for the cap a
player may hold at once (docs/turn-based.md)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gateway.clients import Clients
from gateway.http.problems import Problem
from services.kernel.game import SPECTATOR


@dataclass(frozen=True)
class InPlay:
    """One game a player holds a seat in, as the read models show it."""

    game_id: str
    seat: int
    summary: Mapping[str, Any]

    @property
    def over(self) -> bool:
        return bool(self.summary["status"]["over"])

    @property
    def turn_based(self) -> bool:
        return (self.summary.get("options") or {}).get("speed") == "turn_based"

    @property
    def your_turn(self) -> bool:
        return not self.over and self.seat in self.summary["status"]["to_act"]

    def deadline_ms(self) -> int | None:
        """When the seat's time runs out: its running bank, else the game's own timer."""
        clocks = self.summary.get("clocks")
        if clocks and 0 <= self.seat < len(clocks["running_since_ms"]):
            since = clocks["running_since_ms"][self.seat]
            if since:
                return int(since + clocks["banks_ms"][self.seat])
        deadline = self.summary["status"].get("deadline_ms")
        return int(deadline) if deadline else None


async def games_in_play(c: Clients, player_id: str, scan: int) -> list[InPlay]:
    """The player's games among their ``scan`` most recent, as the read models have them
    (a game the projection has not stored yet: from its engine)."""
    added = dict(await c.accounts.games(player_id, scan))
    ids = list(added)
    summaries = await c.read_models.summaries(await c.generation(), ids)
    seats = await c.tokens.players(ids)
    out = []
    for game_id in ids:
        seat = next((s for s, p in seats[game_id].items() if p == player_id), -1)
        if seat < 0:
            continue
        summary = summaries.get(game_id) or await unprojected(c, game_id, added[game_id])
        out.append(InPlay(game_id, seat, summary))
    return out


async def unprojected(c: Clients, game_id: str, added_ms: int) -> dict[str, Any]:
    """A game the projection has not stored yet (a moment after its creation): its
    status from the engine."""
    engine = await c.engine_for(game_id)
    _, view, _ = await engine.view(game_id, SPECTATOR)
    game = await c.game_type(game_id)
    return {
        "game": game,
        "status": view["status"],
        "options": {"speed": (view.get("table") or {}).get("speed", "realtime")},
        "clocks": (view.get("table") or {}).get("clocks"),
        "created_ms": added_ms,
        "updated_ms": added_ms,
    }


def awaiting(games: list[InPlay]) -> list[dict[str, Any]]:
    """The games whose turn is the player's, the soonest to run out first (a game with
    no clock last, the longest waiting first among them)."""
    now = int(time.time() * 1000)
    rows = []
    for g in games:
        if not g.your_turn:
            continue
        deadline = g.deadline_ms()
        rows.append(
            {
                "game_id": g.game_id,
                "game": g.summary["game"],
                "seat": g.seat,
                "speed": "turn_based" if g.turn_based else "realtime",
                "deadline_ms": deadline,
                "time_left_ms": max(0, deadline - now) if deadline else None,
                "updated_ms": g.summary["updated_ms"],
            }
        )
    far = float("inf")
    rows.sort(key=lambda r: (r["deadline_ms"] or far, r["updated_ms"]))
    return rows


def turn_based_held(games: list[InPlay]) -> int:
    """How many turn-based games in play these are."""
    return sum(1 for g in games if g.turn_based and not g.over)


async def check_turn_based_cap(c: Clients, player_ids: list[str]) -> None:
    """429 when a player already holds the most turn-based games in play the server
    allows (RAFFE_TURN_BASED_CAP): a seat at one more would be a turn they cannot keep."""
    cap, scan = c.settings.turn_based_cap, c.settings.my_games_scan
    for player_id in player_ids:
        held = sum(
            1 for g in await games_in_play(c, player_id, scan) if g.turn_based and not g.over
        )
        if held >= cap:
            raise Problem(
                429,
                "turn_based_cap",
                f"you play {held} turn-based games already, the most at once here ({cap}): "
                "finish one first",
            )


async def turn_based(c: Clients, game_id: str) -> bool:
    """Whether a game is played turn-based (its read model, else its engine's view)."""
    summary = (await c.read_models.summaries(await c.generation(), [game_id])).get(game_id)
    if summary is None:
        summary = await unprojected(c, game_id, 0)
    return (summary.get("options") or {}).get("speed") == "turn_based"

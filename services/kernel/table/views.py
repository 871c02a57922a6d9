"""What the table adds to what a seat sees: each seat's state, the clocks, the table's
moves, and the result keys after the table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field

from services.kernel.game import JSON, Status
from services.kernel.table.state import Table
from services.kernel.views import Shape


def bank_deadline(t: Table[Any], st: Status) -> int:
    running = [
        t.since[s] + t.banks[s]
        for s in st.to_act
        if 0 <= s < len(t.since) and t.since[s] and s not in t.flagged
    ]
    return min(running, default=0)


def nothing(seat: int) -> JSON:
    return {"seat": seat, "to_act": False, "commands": []}


def table_moves(t: Table[Any], seat: int) -> list[dict[str, Any]]:
    """The table commands ``seat`` may send now."""
    if t.kinds[seat] == "bot" or seat in t.left_seats:
        return []
    if seat in t.gone:
        return [{"type": "return"}]
    moves: list[dict[str, Any]] = [{"type": "concede"}, {"type": "leave"}]
    others = [s for s in range(len(t.kinds)) if s != seat]
    if len(t.kinds) == 2 and set(others) <= t.left_seats | set(t.gone):
        moves.append({"type": "claim_win", "valid_from_ms": t.claim_from_ms})
    return moves


class TableMove(Shape):
    """A table command a seat may send now (docs/fair-table.md): give up or leave, take
    the seat back from its bot, or claim the win from ``valid_from_ms`` on."""

    type: Literal["concede", "leave", "return", "claim_win"]
    valid_from_ms: int | None = None  # claim_win: when the countdown ends (Unix ms)


class SeatAtTable(Shape):
    seat: int
    stand_in: bool  # a bot plays the seat now
    left: str | None = None  # "conceded" | "left" | "timed_out"
    gone: bool = False
    vacation_until_ms: int | None = None  # turn-based: its clock waits until then (Unix ms)


class ClocksView(Shape):
    bank_ms: int  # each player's bank at the start
    increment_ms: int
    banks_ms: list[int]  # ms left, at running_since_ms for a running clock
    running_since_ms: list[int]  # 0: not running
    flagged: list[int]  # out of time in this phase: their default move comes
    max_ms: int | None = None  # turn-based: the most a bank holds after a move's increment
    take_over: bool | None = None  # turn-based: out of time, a bot takes the seat to the end


class TableView(Shape):
    """What the table adds to a game's view once it has something to say."""

    seats: list[SeatAtTable]
    claim_from_ms: int = 0
    clocks: ClocksView | None = None
    ended: dict[str, Any] | None = None  # the table's own ending: reason, winners, losers
    speed: Literal["realtime", "turn_based"] = "realtime"  # turn-based: played over days
    left: list[dict[str, Any]] = Field(default_factory=list)  # in the order they left


def _on_vacation(t: Table[Any], seat: int) -> bool:
    return seat < len(t.vacations) and t.vacations[seat] > 0


def table_json(t: Table[Any], over: bool = False) -> JSON:
    """The table's part of a view; ``over``: the game has ended, so no clock runs (the
    last ClocksSet may still show one started: GameEnded stays the last event)."""
    reasons = dict(t.left)
    out: JSON = {
        "seats": [
            {
                "seat": s,
                "stand_in": s in reasons or s in t.gone,
                "left": reasons.get(s),
                "gone": s in t.gone,
                **({"vacation_until_ms": t.vacations[s]} if _on_vacation(t, s) else {}),
            }
            for s in range(len(t.kinds))
        ],
        "claim_from_ms": t.claim_from_ms,
        "left": [{"seat": s, "reason": r} for s, r in t.left],
    }
    if t.bank_ms:
        out["clocks"] = {
            "bank_ms": t.bank_ms,
            "increment_ms": t.increment_ms,
            "banks_ms": list(t.banks),
            "running_since_ms": [0] * len(t.since) if over else list(t.since),
            "flagged": sorted(t.flagged),
        }
        if t.turn_based:
            out["clocks"] |= {"max_ms": t.bank_max_ms, "take_over": t.take_over}
    if t.turn_based:
        out["speed"] = "turn_based"
    if t.ended is not None:
        out["ended"] = {k: t.ended[k] for k in ("reason", "winners", "losers")}
    return out


def ranked_keys(
    keys: list[float], ended: Mapping[str, Any] | None, left: Sequence[int]
) -> list[float]:
    """A game's result keys after the table: a claimed or conceded game's winners first;
    those who left last, the earlier leaver lower (docs/fair-table.md)."""
    if not keys:
        return keys
    out = list(keys)
    top, bottom = max(out), min(out)
    if ended is not None:
        for s in ended.get("winners", []):
            out[s] = top + 1
    for rank, s in enumerate(left):
        out[s] = bottom - len(left) + rank
    return out

"""Which seats an append made due: the pure part of the notifier.

A seat is due at version V when the append that ends at V leaves it among those the game
waits on and it was not before that append. The turn is named by (game, seat, V): the
same whatever batches the log was read in, so a notifier that reads a stretch again
after a restart names the same turns, and the outbox's dedup keys hold."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from services.core.codec import to_domain
from services.core.eventstore import StoredEvent
from services.kernel.game import Game


@dataclass(frozen=True)
class Turn:
    game_id: str
    game: str  # the game's kind
    seat: int
    version: int  # the version whose append made the seat due
    deadline_ms: int  # when the seat's time runs out (0: no clock)
    player: str = ""  # the seat's player when the game was made with one (GameCreated)
    since_ms: int = 0  # when the seat's clock started for this turn (0: no clock)


def appends(events: Sequence[StoredEvent]) -> list[tuple[int, int]]:
    """The appends among one game's events, as (first version, last version): an append's
    events share its command id and follow each other."""
    out: list[tuple[int, int]] = []
    previous: StoredEvent | None = None
    for e in events:
        joined = previous is not None and e.version == previous.version + 1
        if joined and previous is not None and e.command_id == previous.command_id:
            out[-1] = (out[-1][0], e.version)
        else:
            out.append((e.version, e.version))
        previous = e
    return out


def due_turns(
    game: Game[Any], game_id: str, history: Sequence[StoredEvent], made: Sequence[tuple[int, int]]
) -> list[Turn]:
    """The turns the appends ``made`` (first, last version) started, from the game's whole
    ``history`` (every event from version 1 to the last append's end)."""
    ends = {last: first for first, last in made}
    wanted = {first - 1 for first, _ in made} | set(ends)
    to_act: dict[int, frozenset[int]] = {0: frozenset()}
    deadlines: dict[int, dict[int, tuple[int, int]]] = {}
    state = game.initial()
    for e in history:
        state = game.evolve(state, to_domain(e))
        if e.version in wanted:
            status = game.status(state)
            to_act[e.version] = frozenset(() if status.over else status.to_act)
            first = ends.get(e.version)
            if first is not None and to_act[e.version] - to_act.get(first - 1, frozenset()):
                # Someone's turn began: their clock, from the public view (only then: a
                # view is most of a fold's cost).
                deadlines[e.version] = seat_clocks(game.view(state, -1), status.to_act)
    created = orjson.loads(history[0].payload) if history and history[0].version == 1 else {}
    players = [str(s.get("player") or "") for s in created.get("seats", [])]
    turns = []
    for first, last in made:
        before, after = to_act.get(first - 1, frozenset()), to_act.get(last, frozenset())
        for seat in sorted(after - before):
            since, deadline = deadlines.get(last, {}).get(seat, (0, 0))
            player = players[seat] if 0 <= seat < len(players) else ""
            turns.append(Turn(game_id, game.name, seat, last, deadline, player, since))
    return turns


def seat_clocks(public_view: dict[str, Any], seats: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Each waited-on seat's running clock from the table's (the public view's): when it
    started and when the bank runs out."""
    clocks = (public_view.get("table") or {}).get("clocks")
    if not clocks:
        return {}
    since, banks = clocks["running_since_ms"], clocks["banks_ms"]
    return {s: (since[s], since[s] + banks[s]) for s in seats if 0 <= s < len(since) and since[s]}


def still_due(game: Game[Any], history: Sequence[StoredEvent], turn: Turn) -> bool:
    """Whether ``turn`` is still the seat's turn: the game waits on the seat and its clock
    still runs from when the turn began (a reminder of a turn played since says nothing)."""
    state = game.initial()
    for e in history:
        state = game.evolve(state, to_domain(e))
    status = game.status(state)
    if status.over or turn.seat not in status.to_act:
        return False
    clock = seat_clocks(game.view(state, -1), [turn.seat]).get(turn.seat)
    return clock is not None and clock[0] == turn.since_ms

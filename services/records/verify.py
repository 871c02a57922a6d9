"""``raffe verify``: re-play a record through the engines' own code, offline, and check
every event and the result byte for byte (docs/records.md).

Each command is decided again on the state the record's earlier events fold to, with the
seed's draws at the version it was decided on and the time it arrived, exactly as the
engine did; its events must be the recorded ones (type, actor, payload bytes), in order.
A sealed event (hidden for good, e.g. a duplicate tournament's deck) is checked by type
and actor only. A record shows every event in its type's current version (an older
stored shape is upcast: docs/events.md), the version the code re-plays with. The first
difference is reported with its place."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from services.core.codec import to_new
from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.game import Event, SeatSpec
from services.kernel.playthrough import opening
from services.kernel.rng import SeededRng
from services.kernel.spec import GameSpec
from services.kernel.table import StandIn
from services.records.document import FORMAT

# What a record adds to each seat from the accounts as the record is made, not the log.
SHOWN_NOW = ("seat", "player_name", "bot_account")


class Mismatch(Exception):
    """The record does not re-play: ``where`` names the command and event."""

    def __init__(self, where: str, detail: str) -> None:
        super().__init__(f"{where}: {detail}")
        self.where, self.detail = where, detail


@dataclass(frozen=True)
class Verified:
    game_id: str
    commands: int
    events: int


def verify(doc: dict[str, Any], games: dict[str, GameSpec[Any]]) -> Verified:
    """Re-play ``doc``; Mismatch names the first place it differs, or what is malformed
    (a record from outside may hold anything: no shape of it may escape as a crash)."""
    try:
        return _verify(doc, games)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as e:
        raise Mismatch("record", f"malformed ({type(e).__name__}: {e})") from None


def _verify(doc: dict[str, Any], games: dict[str, GameSpec[Any]]) -> Verified:
    _shaped(doc)
    if doc.get("format") != FORMAT:
        raise Mismatch("format", f"expected {FORMAT}, found {doc.get('format')!r}")
    game = games.get(doc.get("game", ""))
    if game is None:
        raise Mismatch("game", f"this build has no game {doc.get('game')!r}")
    commands = doc.get("commands") or []
    if not commands or "create" not in commands[0]:
        raise Mismatch("command 0", "the record does not start with the game's creation")
    state, version, seed = _created(game, commands[0], doc.get("seed", ""))
    _as_created(doc, commands[0])
    count = len(commands[0]["events"])
    for n, c in enumerate(commands[1:], start=1):
        where = f"command {n} (version {c.get('first_version', version + 1)})"
        state = _replayed(game, state, c, SeededRng(seed, version), where)
        version += len(c["events"])
        count += len(c["events"])
    result = game.status(state).to_json()
    if orjson.dumps(result) != orjson.dumps(doc.get("result")):
        raise Mismatch("result", f"recorded {doc.get('result')}, re-played {result}")
    return Verified(str(doc.get("game_id", "")), len(commands), count)


# The fields a record's reader relies on, with the JSON type each must have.
SHAPE = {
    "format": str,
    "game": str,
    "game_id": str,
    "seed": str,
    "options": dict,
    "seats": list,
    "commands": list,
}


def _shaped(doc: dict[str, Any]) -> None:
    for name, kind in SHAPE.items():
        if name not in doc:
            raise Mismatch(name, "missing from the record")
        if not isinstance(doc[name], kind):
            raise Mismatch(name, f"must be a JSON {_KINDS[kind]}")
    for n, c in enumerate(doc["commands"]):
        if not isinstance(c, dict) or not isinstance(c.get("events"), list):
            raise Mismatch(f"command {n}", "must be an object with a list of events")
        if not all(isinstance(e, dict) for e in c["events"]):
            raise Mismatch(f"command {n}", "its events must be objects")


_KINDS = {str: "string", dict: "object", list: "array"}


def _as_created(doc: dict[str, Any], creation: dict[str, Any]) -> None:
    """The record's summary fields say what its first event says (a reader trusts them
    without re-playing): options and seats as the game was created with."""
    created = creation["events"][0].get("data") if creation["events"] else None
    if not isinstance(created, dict):
        raise Mismatch("command 0", "the creation has no event")
    if orjson.dumps(doc["options"]) != orjson.dumps(created.get("options", {})):
        raise Mismatch(
            "options", f"the record says {doc['options']}, its log {created.get('options')}"
        )
    seats = [{k: v for k, v in s.items() if k not in SHOWN_NOW} for s in doc["seats"]]
    if orjson.dumps(seats) != orjson.dumps(created.get("seats", [])):
        raise Mismatch("seats", f"the record says {seats}, its log {created.get('seats')}")


def _created(game: GameSpec[Any], c: dict[str, Any], seed: str) -> tuple[Any, int, str]:
    said = c["create"]
    seats = [SeatSpec(**s) for s in said["seats"]]
    practice, again = said.get("practice", False), said.get("rematch_of", "")
    events = opening(game, said["options"], seats, seed, c["time_ms"], practice, again)
    _same(events, c["events"], "command 0 (the creation)")
    state = game.initial()
    for e in events:
        state = game.evolve(state, e)
    return state, len(events), seed


def _replayed(
    game: GameSpec[Any], state: Any, c: dict[str, Any], rng: SeededRng, where: str
) -> Any:
    if "command" not in c:
        raise Mismatch(where, "the command is not in the record (a game from before records)")
    try:
        typed = game.command(c["command"])
        if c.get("stand_in"):
            typed = StandIn(typed)
        decided = game.decide(state, c["seat"], typed, rng, c["time_ms"])
    except (RuleViolation, InvalidArgument) as refusal:
        raise Mismatch(where, f"refused on re-play: {refusal}") from None
    _same(decided.events, c["events"], where)
    return decided.state


def _same(replayed: list[Event], recorded: list[dict[str, Any]], where: str) -> None:
    if len(replayed) != len(recorded):
        kinds = [e.type for e in replayed]
        raise Mismatch(
            where, f"recorded {len(recorded)} events, re-played {len(replayed)}: {kinds}"
        )
    for i, (mine, theirs) in enumerate(zip(replayed, recorded, strict=True), start=1):
        place = f"{where}, event {i} (version {theirs.get('version')}, {theirs.get('type')})"
        if (mine.type, mine.actor) != (theirs.get("type"), theirs.get("actor")):
            raise Mismatch(place, f"re-played {mine.type} by seat {mine.actor}")
        if theirs.get("sealed"):
            continue
        ours, recorded_bytes = to_new(mine).payload, orjson.dumps(theirs.get("data"))
        if ours != recorded_bytes:
            raise Mismatch(place, f"recorded {recorded_bytes.decode()}, re-played {ours.decode()}")

"""What anyone may see of a tournament: everything but its seed (hidden by the engine's
redaction until the end), which would reveal the deals of the games to come, and, in a
duplicate tournament with people, the results of a round until every table of its deal
has finished it (a finished table's result tells how the deal plays; the gateway holds
the tables themselves back meanwhile, asking ``round_shown``: gateway/live/holds.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.kernel.game import Event
from services.tournament import ratings
from services.tournament.options import public_game_options, recorded
from services.tournament.rules import ORGANISER, buchholz, ranked, status
from services.tournament.state import State


def held_round(state: State) -> int | None:
    """The round whose results are held back: a duplicate round with a person in it that
    some table still plays; None when nothing is held."""
    current = state.current
    if current is None or state.options["format"] != "duplicate":
        return None
    if not any(p.kind == "human" for p in state.players):
        return None  # bots only: nobody could use what a finished table shows
    return None if all(t.finished for t in current.tables) else current.round


def round_shown(view: Mapping[str, Any], number: int) -> bool:
    """Whether round ``number`` of a tournament may be shown outside its tables, read from
    the tournament's public view (what a gateway asks the engine for). False while it is
    a held duplicate round, and before it is dealt at all (fail closed: it will be held
    when it is; before the start, not even the players are known). Once True, true for
    good: a released round is never held again."""
    if view["options"].get("format") != "duplicate" or view["status"]["over"]:
        return True
    if not view["started"]:
        return False  # nothing dealt yet, and who will play is not known
    if not any(p["kind"] == "human" for p in view["players"]):
        return True  # bots only: nobody could use what a finished table shows
    rounds = [r for r in view["rounds"] if r["round"] == number]
    return bool(rounds) and all(t["keys"] is not None for t in rounds[0]["tables"])


def shown_ratings(state: State) -> tuple[ratings.Rating, ...]:
    """The ratings anyone may see: those after the last closed round while one is held
    (each table's result moves them)."""
    if held_round(state) is None:
        return state.ratings
    return (
        state.rating_history[-1]
        if state.rating_history
        else (ratings.INITIAL,) * len(state.players)
    )


def view(state: State, seat: int, reveal: bool = False) -> dict[str, Any]:
    held = None if state.over or reveal else held_round(state)
    return {
        "game": "tournament",
        "seat": seat,
        "options": state.options if state.over or reveal else recorded(state.options),
        "started": state.started,
        "players": [
            {
                "player": i,
                "name": p.name,
                "kind": p.kind,
                "bot_level": p.bot_level,
                "removed": p.removed,
                "account": p.account or None,
                "bot_account": p.program,
            }
            for i, p in enumerate(state.players)
        ],
        "rounds": [
            {
                "round": r.round,
                "game": r.game,
                "tables": [
                    {
                        "table": t.table,
                        "players": list(t.players),
                        "keys": None if r.round == held else t.keys,
                    }
                    for t in r.tables
                ],
                "byes": list(r.byes),
                "points": list(r.points),
            }
            for r in state.rounds
        ],
        "standings": standings(state) if state.started else [],
        "rating_history": [[ratings.ordinal(r) for r in after] for after in state.rating_history],
        "status": status(state).to_json(),
        **({"seed": state.seed} if state.over or reveal else {}),
    }


def standings(state: State) -> list[dict[str, Any]]:
    tiebreak = buchholz(state)
    shown = shown_ratings(state)
    return [
        {
            "rank": rank,
            "player": p,
            "name": state.players[p].name,
            "points": state.points[p],
            "buchholz": tiebreak[p],
            "rating": {
                "mu": shown[p][0],
                "sigma": shown[p][1],
                "ordinal": ratings.ordinal(shown[p]),
            },
            **({"alive": p in state.alive} if state.options["format"] == "elimination" else {}),
        }
        for rank, p in enumerate(ranked(state), start=1)
    ]


def redact(state: State, event: Event, seat: int) -> Event:
    held = held_round(state)
    if event.type == "TableFinished" and held is not None and event.data["round"] == held:
        return Event(event.type, {"round": held, "table": event.data["table"]}, event.actor)
    if event.type == "GameOptionsSet":
        public = public_game_options(dict(event.data["game_options"]))
        return Event(event.type, {"game_options": public}, event.actor)
    return event


def legal_commands(state: State, seat: int) -> dict[str, Any]:
    commands: list[dict[str, Any]] = []
    if seat == ORGANISER and not state.started and not state.over:
        commands = [
            {"type": "register", "name": "<1-64 characters>", "kind": "human|bot"},
            {"type": "remove", "player": "<an entrant's number>"},
            {"type": "start"},
        ]
    return {"to_act": seat in status(state).to_act, "commands": commands}

"""What leaves the Giraffometer engine: views, redacted events, legal commands.

Before the reveal nobody but the voter sees a vote, and nobody sees an answer."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from services.giraffometer.rules import status
from services.giraffometer.state import POSITIONS, State
from services.kernel.game import Event
from services.kernel.views import Shape, StatusShape


def view(state: State, seat: int, reveal: bool = False) -> dict[str, Any]:
    reveal = reveal or state.over
    out: dict[str, Any] = {
        "game": "giraffometer",
        "seat": seat,
        "options": state.options,
        "round": state.round,
        "facts": [
            {"position": p, **state.facts[i].public()}
            for p, i in zip(POSITIONS, state.table, strict=False)
        ],
        "voted": state.voted,
        "players": state.seat_count,
        "progress": {"voted": len(state.votes), "players": state.seat_count},
        "scores": list(state.scores),
        "deadline_ms": state.deadline_ms,
        "last_reveal": _last_reveal(state),
        "status": status(state).to_json(),
        "seed_hash": state.seed_hash,
        "practice": state.practice,
    }
    own = state.vote_of(seat)
    out["your_vote"] = {"lowest": own.lowest, "highest": own.highest} if own else None
    if reveal:
        out["seed"] = state.seed
        out["answers"] = [state.facts[i].answer for i in state.table]
        out["votes"] = {str(s): {"lowest": v.lowest, "highest": v.highest} for s, v in state.votes}
    return out


def _last_reveal(state: State) -> dict[str, Any] | None:
    """The last revealed round with its six facts, answers included (public once
    revealed), so a table can keep showing what was revealed."""
    if state.last_reveal is None:
        return None
    ids = state.last_reveal.get("ids", [])
    facts = [
        {"position": p, **state.facts[i].public(), "answer": state.facts[i].answer}
        for p, i in zip(POSITIONS, ids, strict=False)
        if i in state.facts
    ]
    return {**state.last_reveal, "facts": facts}


def redact(state: State, event: Event, seat: int) -> Event:
    d = event.data
    if event.type == "DeckLoaded":
        return _without_answers(event)
    if event.type in ("DeckShuffled", "DeckReshuffled"):
        return Event(event.type, {"count": len(d["order"])}, event.actor)
    if event.type == "VoteCast" and d["seat"] != seat:
        return Event(event.type, {"seat": d["seat"], "commitment": d["commitment"]}, event.actor)
    return event


def seal(state: State, event: Event) -> Event:
    """Once over: a sealed custom deck (option seal_deck, set by a tournament for its
    tables) keeps its answers out of the log, for every table that shares it (GM-6)."""
    if event.type == "DeckLoaded" and state.options.get("seal_deck"):
        return _without_answers(event)
    return event


def _without_answers(event: Event) -> Event:
    facts = [{k: v for k, v in f.items() if k != "answer"} for f in event.data["facts"]]
    return Event(event.type, {**event.data, "facts": facts}, event.actor)


def legal_commands(state: State, seat: int) -> dict[str, Any]:
    st = status(state)
    commands: list[dict[str, Any]] = []
    if seat in st.to_act:
        commands.append(
            {
                "type": "vote",
                "lowest": list(POSITIONS),
                "highest": list(POSITIONS),
                "rule": "lowest and highest are different positions; a vote is final",
            }
        )
    if not state.over and state.deadline_ms and -1 <= seat < state.seat_count:
        commands.append({"type": "close_round", "valid_from_ms": state.deadline_ms})
    return {"seat": seat, "to_act": seat in st.to_act, "commands": commands}


# -- the view's shape, for clients (services/kernel/views.py) ---------------------------


class FactShape(Shape):
    position: int
    id: str
    question: str
    unit: str
    theme: str
    kind: str = ""  # what is compared (GM-7); games dealt before kinds show none


class GiraffometerView(Shape):
    """A seat's (or a spectator's) view of a Giraffometer game."""

    game: Literal["giraffometer"]
    seat: int
    options: dict[str, Any]
    round: int
    facts: list[FactShape]
    voted: list[int]
    players: int
    progress: dict[str, int]
    scores: list[int]
    deadline_ms: int
    last_reveal: dict[str, Any] | None
    status: StatusShape
    seed_hash: str
    practice: bool  # a practice game: its creator chose the seed and knows every deal
    your_vote: dict[str, int] | None
    seed: str | None = None  # once over (or a revealed replay), as the next three
    answers: list[float] | None = None
    votes: dict[str, dict[str, int]] | None = None


# -- the legal commands' shape, for clients -----------------------------------------------


class VoteEntry(Shape):
    type: Literal["vote"]
    lowest: list[int]
    highest: list[int]
    rule: str


class CloseRoundEntry(Shape):
    type: Literal["close_round"]
    valid_from_ms: int


class GiraffometerLegal(Shape):
    """A seat's legal commands in Giraffometer (GET .../commands adds ``version``)."""

    seat: int
    to_act: bool
    commands: list[Annotated[VoteEntry | CloseRoundEntry, Field(discriminator="type")]]

"""What leaves the Riff Raff engine: views a frontend can draw, redacted events, legal
commands. Cards chosen this round stay hidden until all are in (AL-1)."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import Field

from services.kernel.game import Event
from services.kernel.views import Shape, StatusShape
from services.riff_raff import ship as physics
from services.riff_raff.pieces import SHAPES, shape_of
from services.riff_raff.rules import phase, status
from services.riff_raff.state import State

GEOMETRY = {
    "units": "cm, ship frame, origin at the pivot; tilt counter-clockwise positive",
    "deck": {
        "y": physics.DECK.y,
        "areas": {str(a): list(span) for a, span in physics.DECK_AREAS.items()},
    },
    "yardarms": {str(a): {"y": s.y, "x": [s.x0, s.x1]} for a, s in physics.YARDARMS.items()},
    # Each cargo shape lying at orientation 0 (width, height): a client previews a load.
    "shapes": {name: [shape.width, shape.height] for name, shape in SHAPES.items()},
}


def _ship(s: State) -> dict[str, Any]:
    return {
        "tilt_degrees": round(math.degrees(s.tilt), 3),
        "pieces": [
            {
                "id": p.id,
                "type": shape_of(p.id).name,
                "area": physics.area_at(p.surface, p.x),
                "x": p.x,
                "y": p.base,
                "width": p.width,
                "height": p.height,
            }
            for p in s.ship
        ],
        "geometry": GEOMETRY,
    }


def view(s: State, seat: int, reveal: bool = False) -> dict[str, Any]:
    reveal = reveal or s.over
    t = s.turn
    out: dict[str, Any] = {
        "game": "riff-raff",
        "seat": seat,
        "options": s.options,
        "round": s.round,
        "phase": phase(s),
        "captain": s.captain,
        "order": list(s.order),
        "pending": s.pending,
        "turn": None
        if t is None
        else {
            "seat": t.seat,
            "area": t.area,
            "loaded": list(t.loaded),
            "double": t.double,
            "fallen": [{"id": p, "height": h} for p, h in t.fallen],
            "report": t.report,
            "accepted": list(t.accepted),
            "disputed": t.disputed,
        },
        "chosen": sorted(x for x, _ in s.choices),
        "revealed": {str(k): v for k, v in s.revealed.items()},
        "played": [list(p) for p in s.played],
        "supplies": [sorted(shape_of(p).name for p in sup) for sup in s.supplies],
        "supply_ids": [list(sup) for sup in s.supplies],
        "removed": len(s.removed),
        "status": status(s).to_json(),
        "seed_hash": s.seed_hash,
        "practice": s.practice,
    }
    out["ship"] = _ship(s) if s.simulated else {"aboard": list(s.aboard)}
    if 0 <= seat < s.seat_count:
        out["hand"] = list(s.hands[seat])
        own = s.choice_of(seat)
        out["your_card"] = own.card if own else None
    if reveal:
        out["seed"] = s.seed
        out["hands"] = [list(h) for h in s.hands]
        out["choices"] = {str(x): c.card for x, c in s.choices}
    return out


def redact(s: State, event: Event, seat: int) -> Event:
    d = event.data
    if event.type == "CardChosen" and d["seat"] != seat:
        return Event(event.type, {"seat": d["seat"], "commitment": d["commitment"]}, event.actor)
    return event


def legal_commands(s: State, seat: int) -> dict[str, Any]:
    st = status(s)
    out: dict[str, Any] = {
        "seat": seat,
        "to_act": seat in st.to_act,
        "phase": phase(s),
        "commands": [],
    }
    if seat not in st.to_act:
        return out
    p, commands = phase(s), out["commands"]
    if p == "choose":
        commands.append({"type": "choose_card", "cards": list(s.hands[seat])})
    elif p in ("choose_captain", "order_players") and s.pending:
        field = "seat" if p == "choose_captain" else "order"
        commands.append({"type": p, field: s.pending["seats"]})
    elif p == "load" and s.turn:
        types = sorted({shape_of(x).name for x in s.supplies[seat]})
        double = s.turn.area >= 5 and s.area_held_piece(s.turn.area)
        lo, hi = physics.area_span(s.turn.area)
        commands.append(
            {
                "type": "load",
                "area": s.turn.area,
                "pieces": types,
                "max_pieces": 2 if double else 1,
                "position": [0.0, 1.0],
                "orientation": [0, 360],
                "area_x": [lo, hi],
            }
        )
    elif p == "catch" and s.turn:
        commands.append({"type": "catch", "fallen": [x for x, _ in s.turn.fallen], "max": 2})
    elif p == "report":
        commands.append({"type": "report", "aboard": list(s.aboard), "max_caught": 2})
    elif p == "review":
        commands += [{"type": "accept"}, {"type": "dispute"}]
    elif p == "settle":
        commands.append({"type": "settle", "aboard": list(s.aboard)})
    return out


# -- the view's shape, for clients (services/kernel/views.py) ---------------------------


class ShipPieceShape(Shape):
    id: str
    type: str
    area: int | None
    x: float
    y: float
    width: float
    height: float


class ShipShape(Shape):
    """Simulated: the tilt, every piece and the geometry; tabletop: what is aboard."""

    tilt_degrees: float | None = None
    pieces: list[ShipPieceShape] | None = None
    geometry: dict[str, Any] | None = None
    aboard: list[str] | None = None


class RiffRaffView(Shape):
    """A seat's (or a spectator's) view of a Riff Raff game."""

    game: Literal["riff-raff"]
    seat: int
    options: dict[str, Any]
    round: int
    phase: str
    captain: int
    order: list[int]
    pending: dict[str, Any] | None
    turn: dict[str, Any] | None
    chosen: list[int]
    revealed: dict[str, int]
    played: list[list[int]]
    supplies: list[list[str]]
    supply_ids: list[list[str]]
    removed: int
    status: StatusShape
    seed_hash: str
    practice: bool  # a practice game: its creator chose the seed and knows every deal
    ship: ShipShape
    hand: list[int] | None = None  # a seat's own
    your_card: int | None = None
    seed: str | None = None  # once over (or a revealed replay), as the next two
    hands: list[list[int]] | None = None
    choices: dict[str, int] | None = None


# -- the legal commands' shape, for clients -----------------------------------------------


class ChooseCardEntry(Shape):
    type: Literal["choose_card"]
    cards: list[int]


class ChooseCaptainEntry(Shape):
    type: Literal["choose_captain"]
    seat: list[int]


class OrderPlayersEntry(Shape):
    type: Literal["order_players"]
    order: list[int]


class LoadEntry(Shape):
    type: Literal["load"]
    area: int
    pieces: list[str]
    max_pieces: int
    position: list[float]
    orientation: list[int]
    area_x: list[float]


class CatchEntry(Shape):
    type: Literal["catch"]
    fallen: list[str]
    max: int


class ReportEntry(Shape):
    type: Literal["report"]
    aboard: list[str]
    max_caught: int


class AcceptEntry(Shape):
    type: Literal["accept"]


class DisputeEntry(Shape):
    type: Literal["dispute"]


class SettleEntry(Shape):
    type: Literal["settle"]
    aboard: list[str]


RiffRaffEntry = Annotated[
    ChooseCardEntry
    | ChooseCaptainEntry
    | OrderPlayersEntry
    | LoadEntry
    | CatchEntry
    | ReportEntry
    | AcceptEntry
    | DisputeEntry
    | SettleEntry,
    Field(discriminator="type"),
]


class RiffRaffLegal(Shape):
    """A seat's legal commands in Riff Raff (GET .../commands adds ``version``)."""

    seat: int
    to_act: bool
    phase: str
    commands: list[RiffRaffEntry]

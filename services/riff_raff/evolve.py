"""state + event -> state for Riff Raff: total, trivial, no validation, no randomness.
Physics outcomes are read from the events, never recomputed (RR-7)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from services.core.frozen import set_at
from services.core.game import Event
from services.riff_raff.pieces import piece_ids
from services.riff_raff.ship import Placed
from services.riff_raff.state import CARDS, Choice, State, Turn

Data = Mapping[str, Any]


def _created(s: State, d: Data) -> State:
    n = len(d["seats"])
    copies = 2 if n == 2 else 1
    return s.but(
        options=dict(d["options"]),
        seat_count=n,
        seed=str(d.get("seed", "")),
        seed_hash=str(d["seed_hash"]),
        hands=(CARDS,) * n,
        played=((),) * n,
        supplies=tuple(tuple(piece_ids(seat, copies)) for seat in range(n)),
    )


def _without(s: State, seat: int, piece: str) -> tuple[tuple[str, ...], ...]:
    return set_at(s.supplies, seat, tuple(p for p in s.supplies[seat] if p != piece))


def _loaded(s: State, d: Data) -> State:
    assert s.turn is not None
    seat, piece = int(d["seat"]), str(d["piece"])
    turn = Turn(s.turn.seat, s.turn.area, (*s.turn.loaded, piece), bool(d.get("double")))
    changes: dict[str, Any] = {"supplies": _without(s, seat, piece)}
    if "outcome" in d:  # simulated
        out = d["outcome"]
        changes["tilt"] = float(out["tilt"])
        changes["ship"] = tuple(Placed(**p) for p in out["pieces"])
        fell = tuple((f["id"], float(f["height"])) for f in out["fell"])
        turn = Turn(turn.seat, turn.area, turn.loaded, turn.double, (*s.turn.fallen, *fell))
    else:
        changes["aboard"] = (*s.aboard, piece)
        changes["aboard_areas"] = (*s.aboard_areas, (piece, int(d["area"])))
    return s.but(turn=turn, **changes)


def _fall_resolved(s: State, d: Data) -> State:
    assert s.turn is not None
    seat = s.turn.seat
    back = tuple(d["to_player"])
    gone = set(d["removed"]) | set(back)
    return s.but(
        supplies=set_at(s.supplies, seat, (*s.supplies[seat], *back)),
        removed=(*s.removed, *d["removed"]),
        aboard=tuple(p for p in s.aboard if p not in gone),
        aboard_areas=tuple(pa for pa in s.aboard_areas if pa[0] not in gone),
        turn=Turn(seat, s.turn.area, s.turn.loaded, s.turn.double),
    )


def _reported(s: State, d: Data) -> State:
    assert s.turn is not None
    t = s.turn
    return s.but(turn=Turn(t.seat, t.area, t.loaded, t.double, t.fallen, dict(d), (), False))


def _accepted(s: State, d: Data) -> State:
    assert s.turn is not None
    t = s.turn
    return s.but(
        turn=Turn(
            t.seat, t.area, t.loaded, t.double, t.fallen, t.report, (*t.accepted, int(d["seat"]))
        )
    )


def _disputed(s: State, d: Data) -> State:
    assert s.turn is not None
    t = s.turn
    return s.but(
        turn=Turn(t.seat, t.area, t.loaded, t.double, t.fallen, t.report, t.accepted, True)
    )


def _card_chosen(s: State, d: Data) -> State:
    choice = Choice(int(d["card"]), str(d["salt"]), str(d["commitment"]))
    return s.but(choices=(*s.choices, (int(d["seat"]), choice)))


def _revealed(s: State, d: Data) -> State:
    cards = {int(k): int(v) for k, v in d["cards"].items()}
    hands = tuple(tuple(c for c in h if c != cards.get(i)) for i, h in enumerate(s.hands))
    played = tuple((*p, cards[i]) if i in cards else p for i, p in enumerate(s.played))
    return s.but(hands=hands, played=played, revealed=cards, choices=())


FOLDS: dict[str, Callable[[State, Data], State]] = {
    "GameCreated": _created,
    "CaptainNamed": lambda s, d: s.but(captain=int(d["seat"])),
    "RoundStarted": lambda s, d: s.but(
        round=int(d["round"]), revealed={}, order=(), turn_index=0, turn=None
    ),
    "CardsReturned": lambda s, d: s.but(hands=(CARDS,) * s.seat_count, passes=2),
    "CardChosen": _card_chosen,
    "CardsRevealed": _revealed,
    "DecisionPending": lambda s, d: s.but(pending=dict(d)),
    "CaptainChosen": lambda s, d: s.but(captain=int(d["seat"]), pending=None),
    "PlayersOrdered": lambda s, d: s.but(pending=None),
    "TurnOrderSet": lambda s, d: s.but(order=tuple(d["order"]), turn_index=0),
    "TurnStarted": lambda s, d: s.but(
        turn=Turn(int(d["seat"]), int(d["area"])), turn_index=s.order.index(int(d["seat"]))
    ),
    "PieceLoaded": _loaded,
    "CatchAttempted": lambda s, d: s,
    "FallReported": _reported,
    "ReportAccepted": _accepted,
    "ReportDisputed": _disputed,
    "FallResolved": _fall_resolved,
    "TurnEnded": lambda s, d: s.but(turn=None),
    "GameEnded": lambda s, d: s.but(
        over=True, winners=tuple(d["winners"]), seed=d["seed"], turn=None
    ),
}


def evolve(state: State, event: Event) -> State:
    fold = FOLDS.get(event.type)
    state = fold(state, event.data) if fold else state
    if "deadline_ms" in event.data:
        state = state.but(deadline_ms=int(event.data["deadline_ms"]))
    return state

"""state + event -> state for Riff Raff: total, trivial, no validation, no randomness.
Physics outcomes are read from the events, never recomputed (RR-7)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.kernel.events import Folds, GameCreated, payload
from services.kernel.frozen import set_at
from services.kernel.shared import options
from services.riff_raff import events as ev
from services.riff_raff.events import EVENTS
from services.riff_raff.pieces import piece_ids
from services.riff_raff.ship import Placed
from services.riff_raff.state import CARDS, Choice, State, Turn


def _created(s: State, e: GameCreated) -> State:
    n = len(e.seats)
    copies = 2 if n == 2 else 1
    return s.but(
        options=options(e.options),
        seat_count=n,
        seed=e.seed,
        seed_hash=e.seed_hash,
        practice=bool(e.practice),
        hands=(CARDS,) * n,
        played=((),) * n,
        supplies=tuple(tuple(piece_ids(seat, copies)) for seat in range(n)),
    )


def _without(s: State, seat: int, piece: str) -> tuple[tuple[str, ...], ...]:
    return set_at(s.supplies, seat, tuple(p for p in s.supplies[seat] if p != piece))


def _loaded(s: State, e: ev.PieceLoaded) -> State:
    assert s.turn is not None
    seat, piece = e.seat, e.piece
    turn = Turn(s.turn.seat, s.turn.area, (*s.turn.loaded, piece), e.double)
    changes: dict[str, Any] = {"supplies": _without(s, seat, piece)}
    if e.outcome is not None:  # simulated
        out = e.outcome
        changes["tilt"] = float(out["tilt"])
        changes["ship"] = tuple(Placed(**p) for p in out["pieces"])
        fell = tuple((f["id"], float(f["height"])) for f in out["fell"])
        turn = Turn(turn.seat, turn.area, turn.loaded, turn.double, (*s.turn.fallen, *fell))
    else:
        changes["aboard"] = (*s.aboard, piece)
        changes["aboard_areas"] = (*s.aboard_areas, (piece, e.area))
    return s.but(turn=turn, **changes)


def _fall_resolved(s: State, e: ev.FallResolved) -> State:
    assert s.turn is not None
    seat = s.turn.seat
    back = tuple(e.to_player)
    gone = set(e.removed) | set(back)
    return s.but(
        supplies=set_at(s.supplies, seat, (*s.supplies[seat], *back)),
        removed=(*s.removed, *e.removed),
        aboard=tuple(p for p in s.aboard if p not in gone),
        aboard_areas=tuple(pa for pa in s.aboard_areas if pa[0] not in gone),
        turn=Turn(seat, s.turn.area, s.turn.loaded, s.turn.double),
    )


def _reported(s: State, e: ev.FallReported) -> State:
    assert s.turn is not None
    t = s.turn
    return s.but(turn=Turn(t.seat, t.area, t.loaded, t.double, t.fallen, payload(e), (), False))


def _accepted(s: State, e: ev.ReportAccepted) -> State:
    assert s.turn is not None
    t = s.turn
    return s.but(
        turn=Turn(t.seat, t.area, t.loaded, t.double, t.fallen, t.report, (*t.accepted, e.seat))
    )


def _disputed(s: State, e: ev.ReportDisputed) -> State:
    assert s.turn is not None
    t = s.turn
    return s.but(
        turn=Turn(t.seat, t.area, t.loaded, t.double, t.fallen, t.report, t.accepted, True)
    )


def _card_chosen(s: State, e: ev.CardChosen) -> State:
    choice = Choice(e.card, e.salt, e.commitment)
    return s.but(choices=(*s.choices, (e.seat, choice)))


def _revealed(s: State, e: ev.CardsRevealed) -> State:
    cards = {int(k): int(v) for k, v in e.cards.items()}
    hands = tuple(tuple(c for c in h if c != cards.get(i)) for i, h in enumerate(s.hands))
    played = tuple((*p, cards[i]) if i in cards else p for i, p in enumerate(s.played))
    return s.but(hands=hands, played=played, revealed=cards, choices=())


def _timed(fold: Callable[[State, Any], State]) -> Callable[[State, Any], State]:
    """An event that may start a clock (events.py: ``deadline_ms``) also sets it."""

    def timed(s: State, e: Any) -> State:
        s = fold(s, e)
        return s if e.deadline_ms is None else s.but(deadline_ms=e.deadline_ms)

    return timed


evolve: Folds[State] = Folds(
    EVENTS,
    {
        GameCreated: _created,
        ev.CaptainNamed: lambda s, e: s.but(captain=e.seat),
        ev.RoundStarted: _timed(
            lambda s, e: s.but(round=e.round, revealed={}, order=(), turn_index=0, turn=None)
        ),
        ev.CardsReturned: lambda s, e: s.but(hands=(CARDS,) * s.seat_count, passes=2),
        ev.CardChosen: _card_chosen,
        ev.CardsRevealed: _revealed,
        ev.DecisionPending: _timed(lambda s, e: s.but(pending=payload(e))),
        ev.CaptainChosen: lambda s, e: s.but(captain=e.seat, pending=None),
        ev.PlayersOrdered: lambda s, e: s.but(pending=None),
        ev.TurnOrderSet: lambda s, e: s.but(order=tuple(e.order), turn_index=0),
        ev.TurnStarted: _timed(
            lambda s, e: s.but(turn=Turn(e.seat, e.area), turn_index=s.order.index(e.seat))
        ),
        ev.PieceLoaded: _timed(_loaded),
        ev.CatchAttempted: lambda s, e: s,
        ev.FallReported: _timed(_reported),
        ev.ReportAccepted: _accepted,
        ev.ReportDisputed: _timed(_disputed),
        ev.FallResolved: _fall_resolved,
        ev.TurnEnded: lambda s, e: s.but(turn=None),
        ev.GameEnded: lambda s, e: s.but(
            over=True, winners=tuple(e.winners), seed=e.seed, turn=None
        ),
    },
)

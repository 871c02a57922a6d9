"""state + event -> state. Total and trivial: no validation, no randomness (DESIGN §2).

Payloads may come straight from JSON (lists) or from decide (tuples); both fold alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from services.core.frozen import set_at
from services.core.game import Event
from services.giraffe_raffe.state import APPLES, NO_ONE, RobotTie, State
from services.giraffe_raffe.trees import Play, Tree, layout

Data = Mapping[str, Any]


def _play(seat: int, cards: Any, copies: Any) -> Play:
    return Play(seat, tuple(cards), tuple((str(k), str(v)) for k, v in dict(copies).items()))


def _created(s: State, d: Data) -> State:
    players = 2 if d["options"]["mode"] == "solo" else len(d["seats"])
    return s.but(
        options=dict(d["options"]),
        seat_count=len(d["seats"]),
        seed=str(d.get("seed", "")),
        seed_hash=str(d["seed_hash"]),
        hands=((),) * players,
        apples=(0,) * players,
        rotten=(0,) * players,
        trees=layout(players),
    )


def _dealt(s: State, d: Data) -> State:
    return s.but(
        round=int(d["round"]),
        dealer=int(d["dealer"]),
        turn=NO_ONE,
        hands=tuple(tuple(h) for h in d["hands"]),
        redraw=tuple(d["redraw"]),
        out=tuple(d["out"]),
        robot_deck=tuple(d.get("robot_deck", ())),
        apples=(0,) * len(s.apples),
        supply=APPLES,
        trees=layout(len(s.hands)),
        robot_tie=None,
    )


def _played(s: State, d: Data) -> State:
    seat, cards = int(d["seat"]), tuple(d["cards"])
    hand = tuple(c for c in s.hands[seat] if c not in cards)
    trees = tuple(
        Tree(t.id, t.kind, t.colours, (*t.plays, _play(seat, cards, d.get("copies", {}))))
        if t.id == d["tree"]
        else t
        for t in s.trees
    )
    return s.but(hands=set_at(s.hands, seat, hand), trees=trees, robot_tie=None)


def _redraw_taken(s: State, d: Data) -> State:
    seat, card = int(d["seat"]), s.redraw[0]
    s = s.but(redraw=s.redraw[1:])
    if d.get("to") == "robot_deck":
        return s.but(robot_deck=(card, *s.robot_deck))
    return s.with_hand(seat, (*s.hands[seat], card))


def _apples_taken(s: State, d: Data) -> State:
    seat, n = int(d["seat"]), int(d["count"])
    return s.but(apples=set_at(s.apples, seat, s.apples[seat] + n), supply=s.supply - n)


def _apple_returned(s: State, d: Data) -> State:
    seat = int(d["seat"])
    return s.but(apples=set_at(s.apples, seat, s.apples[seat] - 1), supply=s.supply + 1)


def _robot_drew(s: State, d: Data) -> State:
    n, robot = len(d["cards"]), s.robot
    s = s.but(robot_deck=s.robot_deck[n:])
    return s.with_hand(robot, (*s.hands[robot], *d["cards"]))


def _tie_offered(s: State, d: Data) -> State:
    options = tuple(_play(s.robot, o["cards"], o.get("copies", {})) for o in d["options"])
    return s.but(robot_tie=RobotTie(str(d["tree"]), options))


def _lost(s: State, d: Data) -> State:
    return s.but(turn=NO_ONE)


def _rotten(s: State, d: Data) -> State:
    seat = int(d["seat"])
    return s.but(rotten=set_at(s.rotten, seat, s.rotten[seat] + 1))


def _ended(s: State, d: Data) -> State:
    return s.but(
        over=True,
        turn=NO_ONE,
        winners=tuple(d["winners"]),
        losers=tuple(d["losers"]),
        seed=str(d.get("seed", s.seed)),
    )


FOLDS: dict[str, Callable[[State, Data], State]] = {
    "GameCreated": _created,
    "CardsDealt": _dealt,
    "TurnStarted": lambda s, d: s.but(
        turn=int(d["seat"]), deadline_ms=int(d.get("deadline_ms", 0))
    ),
    "CardsPlayed": _played,
    "RedrawCardTaken": _redraw_taken,
    "ApplesTaken": _apples_taken,
    "AppleReturned": _apple_returned,
    "RobotCardsDrawn": _robot_drew,
    "RobotTieOffered": _tie_offered,
    "PlayerLost": _lost,
    "RottenAppleTaken": _rotten,
    "GameEnded": _ended,
}


def evolve(state: State, event: Event) -> State:
    fold = FOLDS.get(event.type)
    return fold(state, event.data) if fold else state


def fold(events: list[Event], state: State | None = None) -> State:
    s = state or State()
    for e in events:
        s = evolve(s, e)
    return s

"""state + event -> state. Total and trivial: no validation, no randomness (DESIGN §2)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from services.giraffe_raffe import events as ev
from services.giraffe_raffe.events import EVENTS
from services.giraffe_raffe.state import APPLES, NO_ONE, RobotTie, State
from services.giraffe_raffe.trees import Play, Tree, layout
from services.kernel.events import Folds, GameCreated
from services.kernel.frozen import set_at
from services.kernel.shared import names, options


def _play(seat: int, cards: Sequence[str], copies: Mapping[str, str]) -> Play:
    shared = tuple((sys.intern(str(k)), sys.intern(str(v))) for k, v in dict(copies).items())
    return Play(seat, names(cards), shared)


def _created(s: State, e: GameCreated) -> State:
    players = 2 if e.options["mode"] == "solo" else len(e.seats)
    return s.but(
        options=options(e.options),
        seat_count=len(e.seats),
        seed=e.seed,
        seed_hash=e.seed_hash,
        practice=bool(e.practice),
        hands=((),) * players,
        apples=(0,) * players,
        rotten=(0,) * players,
        trees=layout(players),
    )


def _dealt(s: State, e: ev.CardsDealt) -> State:
    return s.but(
        round=e.round,
        dealer=e.dealer,
        turn=NO_ONE,
        # Each card's name is one string in the process (services.kernel.shared).
        hands=tuple(names(h) for h in e.hands),
        redraw=names(e.redraw),
        out=names(e.out),
        robot_deck=names(e.robot_deck),
        apples=(0,) * len(s.apples),
        supply=APPLES,
        trees=layout(len(s.hands)),
        robot_tie=None,
    )


def _played(s: State, e: ev.CardsPlayed) -> State:
    cards = names(e.cards)
    hand = tuple(c for c in s.hands[e.seat] if c not in cards)
    trees = tuple(
        Tree(t.id, t.kind, t.colours, (*t.plays, _play(e.seat, cards, e.copies)))
        if t.id == e.tree
        else t
        for t in s.trees
    )
    return s.but(hands=set_at(s.hands, e.seat, hand), trees=trees, robot_tie=None)


def _redraw_taken(s: State, e: ev.RedrawCardTaken) -> State:
    card = s.redraw[0]
    s = s.but(redraw=s.redraw[1:])
    if e.to == "robot_deck":
        return s.but(robot_deck=(card, *s.robot_deck))
    return s.with_hand(e.seat, (*s.hands[e.seat], card))


def _apples_taken(s: State, e: ev.ApplesTaken) -> State:
    return s.but(
        apples=set_at(s.apples, e.seat, s.apples[e.seat] + e.count), supply=s.supply - e.count
    )


def _apple_returned(s: State, e: ev.AppleReturned) -> State:
    return s.but(apples=set_at(s.apples, e.seat, s.apples[e.seat] - 1), supply=s.supply + 1)


def _robot_drew(s: State, e: ev.RobotCardsDrawn) -> State:
    n, robot = len(e.cards), s.robot
    s = s.but(robot_deck=s.robot_deck[n:])
    return s.with_hand(robot, (*s.hands[robot], *names(e.cards)))


def _tie_offered(s: State, e: ev.RobotTieOffered) -> State:
    options = tuple(_play(s.robot, o["cards"], o.get("copies", {})) for o in e.options)
    return s.but(robot_tie=RobotTie(e.tree, options))


def _rotten(s: State, e: ev.RottenAppleTaken) -> State:
    return s.but(rotten=set_at(s.rotten, e.seat, s.rotten[e.seat] + 1))


def _ended(s: State, e: ev.GameEnded) -> State:
    return s.but(
        over=True,
        turn=NO_ONE,
        winners=tuple(e.winners),
        losers=tuple(e.losers),
        seed=e.seed or s.seed,
    )


evolve: Folds[State] = Folds(
    EVENTS,
    {
        GameCreated: _created,
        ev.CardsDealt: _dealt,
        ev.TurnStarted: lambda s, e: s.but(turn=e.seat, deadline_ms=e.deadline_ms),
        ev.CardsPlayed: _played,
        ev.RedrawCardTaken: _redraw_taken,
        ev.ApplesTaken: _apples_taken,
        ev.AppleReturned: _apple_returned,
        ev.RobotCardsDrawn: _robot_drew,
        ev.RobotTieOffered: _tie_offered,
        ev.PlayerLost: lambda s, e: s.but(turn=NO_ONE),
        ev.RottenAppleTaken: _rotten,
        ev.GameEnded: _ended,
    },
)

"""state + event -> state for Pebbles."""

from __future__ import annotations

from services.kernel.events import Folds
from tests.games.pebbles import events as ev
from tests.games.pebbles.events import EVENTS
from tests.games.pebbles.state import State

evolve: Folds[State] = Folds(
    EVENTS,
    {
        ev.GameCreated: lambda s, e: s.but(
            seat_count=len(e.seats), pile=e.options["pile"], seed=e.seed
        ),
        ev.LuckyNumbersDrawn: lambda s, e: s.but(lucky=tuple(e.numbers)),
        ev.TurnStarted: lambda s, e: s.but(turn=e.seat),
        ev.PebblesTaken: lambda s, e: s.but(pile=s.pile - e.count),
        ev.GameEnded: lambda s, e: s.but(over=True, turn=-1, winners=tuple(e.winners)),
    },
)

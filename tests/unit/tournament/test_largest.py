"""The largest tournament the options allow (MAX_PLAYERS entrants, #28: a thousand
people) fits the event store: each event of a whole round, the round's end with
everyone's points and ratings the largest, stays under the store's per-event limit,
and everyone is seated once."""

from __future__ import annotations

from services.core.codec import dumps
from services.core.settings import StoreSettings
from services.kernel.game import ENGINE, SeatSpec
from services.kernel.playthrough import Playthrough
from services.tournament.game import GAME
from services.tournament.options import MAX_PLAYERS
from services.tournament.rules import ORGANISER
from services.tournament.state import State


def test_a_round_of_the_largest_tournament_fits_the_event_store() -> None:
    options = {"format": "swiss", "table_size": 4, "rounds": 2, "max_players": MAX_PLAYERS}
    p: Playthrough[State] = Playthrough.start(GAME, options, [SeatSpec("human")], "big")
    for i in range(MAX_PLAYERS):
        p.execute(ORGANISER, {"type": "register", "name": f"player {i}", "kind": "human"})
    events = p.execute(ORGANISER, {"type": "start"})
    tables = p.state.rounds[0].tables
    assert sorted(q for t in tables for q in t.players) == list(range(MAX_PLAYERS))
    for t in tables:
        result = {"type": "result", "round": 1, "table": t.table, "keys": [4, 3, 2, 1]}
        events += p.execute(ENGINE, result)
    assert [e.type for e in events[-2:]] == ["RoundEnded", "RoundStarted"]
    largest = max(len(dumps(e.data)) for e in events)
    assert largest < StoreSettings().max_event_bytes

"""Folded states share what is the same across games (services.kernel.shared): states
folded from each game's own JSON (as the gateway's live hub, the projection and the
engines fold them) hold one copy of a card's name, a tile layout, a seat kind and a
common set of options, not one copy each."""

from __future__ import annotations

import sys
from typing import Any

from services.core.codec import to_new
from services.core.eventstore import StoredEvent
from services.core.gamestate import fold
from services.games import GAMES
from services.kernel import shared
from services.kernel.game import SeatSpec
from services.kernel.playthrough import opening

GAME = GAMES["giraffe-raffe"]


def stored_opening(seed: str) -> list[StoredEvent]:
    """A four-seat turn-based table's first events, in their stored (JSON) form."""
    seats = [SeatSpec("human", f"P{i}") for i in range(4)]
    events = opening(GAME, {"speed": "turn_based"}, seats, seed, now_ms=1000)
    stored = []
    for version, event in enumerate(events, start=1):
        new = to_new(event)
        stored.append(
            StoredEvent(
                seed, GAME.name, version, new.id, new.type, new.schema_version,
                new.payload, new.actor, "c", 1000, "1",
            )
        )  # fmt: skip
    return stored


def from_json(seed: str) -> Any:
    """A four-seat table at its deal, folded from its events' stored (JSON) form."""
    return fold(GAME, stored_opening(seed))


def test_two_tables_folded_from_json_hold_one_copy_of_each_card_name() -> None:
    a, b = from_json("one"), from_json("two")
    a_cards = {c: c for hand in a.game.hands for c in hand}
    common = [c for hand in b.game.hands for c in hand if c in a_cards]
    assert common  # two deals of the same deck share cards
    assert all(a_cards[c] is c for c in common)
    piles = (*a.game.hands, a.game.redraw, a.game.out, a.game.robot_deck)
    assert all(card is sys.intern(card) for pile in piles for card in pile)


def test_two_tables_share_their_layout_options_and_seat_kinds() -> None:
    a, b = from_json("one"), from_json("two")
    assert a.game.trees is b.game.trees
    assert a.game.options is b.game.options and a.game.options == b.game.options
    assert all(x is y for x, y in zip(a.kinds, b.kinds, strict=True))


def test_options_with_lists_are_copied_not_shared_and_the_memo_is_bounded() -> None:
    nested = {"themes": ["animals"], "deck": "default"}
    first, second = shared.options(nested), shared.options(nested)
    assert first == second == nested and first is not second
    for n in range(shared.OPTIONS_KEPT + 5):
        shared.options({"n": n})
    assert len(shared._options) <= shared.OPTIONS_KEPT


def test_an_empty_seat_set_is_the_shared_one() -> None:
    assert shared.seats([]) is shared.seats(()) is shared.NO_SEATS
    assert shared.seats([2, 1]) == frozenset({1, 2})


def test_options_equal_but_of_other_types_are_not_shared() -> None:
    """1, 1.0 and True are equal in Python; a game that chose true keeps true."""
    chose = [shared.options({"flag": v}) for v in (1, True, 1.0)]
    assert [type(o["flag"]) for o in chose] == [int, bool, float]
    assert shared.options({"flag": True}) is chose[1]

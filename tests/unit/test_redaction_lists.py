"""A seat's redaction of stored events (services.core.redaction) answers the very list it
was given when the seat may see every event as stored: the live fan-out frames such a
list once for all the audiences that get it. A list with something hidden is a new one,
and the stored events are left as they were."""

from __future__ import annotations

from services.core.gamestate import fold
from services.core.redaction import redact_stored
from services.kernel.game import SPECTATOR
from tests.unit.test_shared_state import GAME, stored_opening


def test_a_list_nothing_is_hidden_from_is_answered_as_given() -> None:
    events = stored_opening("lists")
    state = fold(GAME, events)
    after_deal = [e for e in events if e.type != "CardsDealt" and e.type != "GameCreated"]
    assert after_deal, [e.type for e in events]
    for seat in (0, 1, SPECTATOR):
        assert redact_stored(GAME, state, after_deal, seat) is after_deal


def test_a_list_with_a_hidden_hand_is_a_new_one_and_the_stored_events_stand() -> None:
    events = stored_opening("lists")
    state = fold(GAME, events)
    payloads = [e.payload for e in events]
    seen = redact_stored(GAME, state, events, 1)
    assert seen is not events
    dealt = next(e for e in seen if e.type == "CardsDealt")
    assert b'"0":' not in dealt.payload and b'"1":' in dealt.payload  # its own hand only
    assert [e.payload for e in events] == payloads
    assert redact_stored(GAME, state, events, 1, over=True) is events  # over: all shown

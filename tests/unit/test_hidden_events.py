"""A game says which of its event types its redaction may change while it runs
(EventTypes.hidden); redaction passes a list of other events on as stored without asking
the game (services.core.redaction.nothing_hidden), so a type missing from the declaration
would leak. These tests hold the declaration to the redaction code itself, to a played
game the bot walks do not reach (a custom Giraffometer deck), and show what the shortcut
spares and that a game without a declaration is still asked about every event."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import textwrap
from typing import Any

import pytest

from services.core.codec import to_new
from services.core.eventstore import StoredEvent
from services.core.gamestate import fold
from services.core.redaction import redact_event, redact_stored
from services.games import PACKAGES
from services.kernel.game import SPECTATOR, Event
from services.kernel.playthrough import play_bots
from services.kernel.spec import GameSpec
from services.kernel.table import seated
from tests.unit.giraffometer.given import deck
from tests.unit.test_shared_state import GAME, stored_opening

EVERY = [*PACKAGES, "services.tournament", "tests.games.pebbles"]


def spec_of(package: str) -> GameSpec[Any]:
    game: GameSpec[Any] = importlib.import_module(package + ".game").GAME
    return game


def types_named(function: Any, types: set[str]) -> set[str]:
    """The event types a function's code names as string literals."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    found = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    return {t for t in found if isinstance(t, str) and t in types}


@pytest.mark.parametrize("package", EVERY)
def test_every_type_a_redaction_names_is_declared_hidden(package: str) -> None:
    game = spec_of(package)
    assert game.events is not None
    named = types_named(game.redact, set(game.events.by_name))
    if game.events.hidden is None:  # not said: every event is asked about (pebbles)
        assert package == "tests.games.pebbles" and named
        return
    assert named, package  # every game here hides something while it runs
    assert named <= game.events.hidden
    assert seated(game).events.hidden == game.events.hidden  # at a table, the same


def test_a_custom_deck_s_answers_stay_hidden_and_are_declared() -> None:
    """The bot walks play the shipped deck; a custom one is recorded in DeckLoaded, whose
    answers its redaction leaves out."""
    gm = seated(spec_of("services.giraffometer"))
    played = play_bots(gm, [gm.bot("random")] * 3, "custom-deck", {"deck": deck()})
    state, changed = gm.initial(), set()
    for event in played.events:
        state = gm.evolve(state, event)
        if not gm.status(state).over:
            for seat in (0, 1, 2, SPECTATOR):
                if redact_event(gm, state, event, seat) is not event:
                    changed.add(event.type)
    assert "DeckLoaded" in changed
    assert gm.events is not None and gm.events.hidden is not None
    assert changed - {"GameCreated"} <= gm.events.hidden


def counting(game: GameSpec[Any]) -> tuple[GameSpec[Any], list[str]]:
    """The game, with each event its redaction is asked about noted."""
    asked: list[str] = []

    def redact(state: Any, event: Event, seat: int) -> Event:
        asked.append(event.type)
        return game.redact(state, event, seat)

    return dataclasses.replace(game, redact=redact), asked


def test_a_move_that_hides_nothing_is_passed_on_without_asking_the_game() -> None:
    events = stored_opening("hidden")
    counted, asked = counting(GAME)
    state = fold(counted, events)
    moves = [e for e in events if e.type not in GAME.events.hidden | {"GameCreated"}]
    assert moves
    for seat in (0, 1, SPECTATOR):
        assert redact_stored(counted, state, moves, seat) is moves
    assert asked == []
    dealt = redact_stored(counted, state, events, 1)  # with the deal: asked, and hidden
    assert "CardsDealt" in asked and dealt is not events


def stored(events: list[Event]) -> list[StoredEvent]:
    out = []
    for version, event in enumerate(events, start=1):
        new = to_new(event)
        out.append(
            StoredEvent(
                "g", "pebbles", version, new.id, new.type, new.schema_version,
                new.payload, new.actor, "c", 1000, "1",
            )
        )  # fmt: skip
    return out


def test_a_game_that_does_not_say_is_asked_about_every_event() -> None:
    pebbles = seated(spec_of("tests.games.pebbles"))
    counted, asked = counting(pebbles)
    played = play_bots(pebbles, [pebbles.bot("random")] * 2, "pebbles")
    drawn = next(i for i, e in enumerate(played.events) if e.type == "LuckyNumbersDrawn")
    events = stored(played.events[: drawn + 1])
    state = fold(counted, events)
    shown = redact_stored(counted, state, events[drawn:], 0)
    assert asked == ["LuckyNumbersDrawn"]
    assert shown is not events and b"null" in shown[0].payload  # the other seat's number


def test_the_live_fan_out_asks_once_a_move_not_once_an_audience() -> None:
    """A batch that hides nothing goes to every audience as stored, the game unasked; once
    the game is over (its log public), each audience's list is asked about again."""
    from gateway.live.hub import Batch

    events = stored_opening("batch")
    counted, asked = counting(GAME)
    state = fold(counted, events)
    moves = [e for e in events if e.type not in GAME.events.hidden | {"GameCreated"}]
    batch = Batch(counted, moves)
    batch.settle(over=False)
    assert all(batch.redacted(state, seat) is batch.events for seat in (0, 1, 2, 3, SPECTATOR))
    assert asked == [] and batch.public
    dealt = Batch(counted, events)
    dealt.settle(over=False)
    assert not dealt.public and dealt.redacted(state, 1) is not dealt.events

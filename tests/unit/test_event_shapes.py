"""The events the API documents are the events clients get: every event of whole bot
games, as each seat and a spectator see it while the game runs (redacted) and as anyone
sees it once it is over, matches its game's published ``<Game>Event`` schema, with no
field the schema does not name."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator

from gateway.app import create_app
from gateway.http.openapi import pascal
from services.core.redaction import redact_event
from services.games import GAMES
from services.kernel.game import ENGINE, SPECTATOR, Event
from services.kernel.playthrough import play_bots
from services.tournament.game import GAME as TOURNAMENT
from services.tournament.rules import ORGANISER
from tests.unit.test_one_home import played_ways, table_of
from tests.unit.tournament.test_rules import started


def strict_document() -> dict[str, Any]:
    """The published components, each payload schema closed (no unnamed fields)."""
    components = copy.deepcopy(create_app().openapi()["components"])
    for name, game in {**GAMES, TOURNAMENT.name: TOURNAMENT}.items():
        assert game.events is not None
        for type_name in game.events.by_name:
            for suffix in ("", "Seen"):
                payload = components["schemas"].get(f"{pascal(name)}{type_name}{suffix}")
                if payload is not None:
                    payload["additionalProperties"] = False
    return {"components": components}


DOCUMENT = strict_document()


def as_sent(event: Event, version: int) -> dict[str, Any]:
    data = orjson.loads(orjson.dumps(event.data))  # tuples as JSON arrays, as on the wire
    return {
        "id": f"e{version}",
        "game_id": "g",
        "version": version,
        "type": event.type,
        "schema_version": 1,
        "data": data,
        "actor": event.actor,
        "command_id": "c",
        "time_ms": 0,
        "engine_version": "test",
    }


@pytest.mark.parametrize("name", list(GAMES))
def test_every_event_a_seat_sees_has_its_published_shape(name: str) -> None:
    game = GAMES[name]
    schema = {**DOCUMENT, "$ref": f"#/components/schemas/{pascal(name)}Event"}
    validator = Draft202012Validator(schema)
    seen_types: set[str] = set()
    played_types: set[str] = set()
    for options in played_ways(game):
        seats = table_of(game, options)
        played = play_bots(game, [game.bot("random")] * seats, f"events-{name}", options)
        state = game.initial()
        for version, event in enumerate(played.events, start=1):
            state = game.evolve(state, event)
            played_types.add(event.type)
            for seat in (*range(seats), SPECTATOR):  # live, as the redacting fan-out sends it
                shown = redact_event(game, state, event, seat)
                errors = [e.message for e in validator.iter_errors(as_sent(shown, version))]
                assert not errors, (event.type, seat, shown.data, errors[:3])
                if shown is not event:
                    seen_types.add(event.type)
        for version, event in enumerate(played.events, start=1):  # over: as they are
            errors = [e.message for e in validator.iter_errors(as_sent(event, version))]
            assert not errors, (event.type, event.data, errors[:3])
    assert game.events is not None
    # Each seen form declared is one redaction produced (of the types these games had).
    assert set(game.events.seen) & played_types <= seen_types
    # Every type a redaction changed is declared hidden (GameCreated's seed always is):
    # redaction passes the others on without asking (services.core.redaction).
    assert game.events.hidden is not None
    assert seen_types - {"GameCreated"} <= game.events.hidden


@pytest.mark.parametrize("fmt", ["swiss", "duplicate", "elimination"])
def test_every_event_of_a_tournament_has_its_published_shape(fmt: str) -> None:
    """A tournament's events are typed as a game's (services/tournament/events.py): each
    one written in a whole tournament matches TournamentEvent, with no unnamed field."""
    validator = Draft202012Validator({**DOCUMENT, "$ref": "#/components/schemas/TournamentEvent"})
    p = started({"format": fmt, "table_size": 3, "rounds": 2}, 6)
    while not p.state.over:
        current = p.state.current
        assert current is not None
        table = next(t for t in current.tables if not t.finished)
        keys = list(range(len(table.players)))
        p.execute(
            ENGINE, {"type": "result", "round": current.round, "table": table.table, "keys": keys}
        )
    assert {"RoundStarted", "TableFinished", "RoundEnded", "GameEnded"} <= {
        e.type for e in p.events
    }
    for version, event in enumerate(p.events, start=1):
        errors = [e.message for e in validator.iter_errors(as_sent(event, version))]
        assert not errors, (event.type, event.data, errors[:3])
    # What a tournament's redaction changes while it runs is declared hidden.
    state, changed = TOURNAMENT.initial(), set()
    for event in p.events:
        state = TOURNAMENT.evolve(state, event)
        for seat in (ORGANISER, 0, 1, SPECTATOR):
            if redact_event(TOURNAMENT, state, event, seat) is not event:
                changed.add(event.type)
    assert TOURNAMENT.events is not None and TOURNAMENT.events.hidden is not None
    assert changed - {"GameCreated"} <= TOURNAMENT.events.hidden

"""Events that upgrade (docs/events.md): a stored sample of every released version of
every event type is kept in tests/samples/events and still reads as its type's current
shape; a log written before a type's newest version folds, replays and is shown to
clients exactly as one written now."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import orjson
import pytest

from services.core.codec import to_new
from services.core.eventstore import StoredEvent
from services.core.gamestate import fold
from services.core.redaction import redact_stored
from services.games import GAMES
from services.kernel.events import version_of
from services.kernel.game import SPECTATOR, Event
from services.kernel.playthrough import play_bots

SAMPLES = Path(__file__).parent.parent / "samples" / "events"


def sample(game: str, name: str, version: int) -> Event:
    raw = orjson.loads((SAMPLES / game / f"{name}.v{version}.json").read_bytes())
    return Event(raw["type"], raw["data"], raw["actor"], raw["schema_version"])


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_released_version_of_every_event_has_a_sample_that_reads(game: str) -> None:
    types = GAMES[game].events
    assert types is not None
    for name, cls in types.by_name.items():
        for version in range(1, version_of(cls) + 1):
            path = SAMPLES / game / f"{name}.v{version}.json"
            assert path.exists(), (
                f"no sample of {name} version {version}: run tests.samples.generate"
            )
            event = sample(game, name, version)
            current = types.upcast(event)
            assert current.schema_version == version_of(cls)
            typed = types.parse(event)  # the fold's own reading
            assert isinstance(typed, cls)
            fields = {f.name for f in dataclasses.fields(cls)}
            assert set(current.data) <= fields, (name, version, set(current.data) - fields)


def test_an_old_round_revealed_reads_as_version_2() -> None:
    types = GAMES["giraffometer"].events
    assert types is not None
    old = sample("giraffometer", "RoundRevealed", 1)
    new = types.upcast(old)
    assert "closed_by_timer" not in new.data and new.data["closed_by"] == "timer"
    assert types.parse(old).closed_by == "timer"


def as_stored(events: list[Event]) -> list[StoredEvent]:
    return [
        StoredEvent(
            "g",
            "giraffometer",
            i,
            str(i),
            e.type,
            e.schema_version,
            to_new(e).payload,
            e.actor,
            "c",
            0,
            "giraffometer/1",
        )
        for i, e in enumerate(events, start=1)
    ]


def version_1(events: list[Event]) -> list[Event]:
    """The same log as the previous release wrote it: RoundRevealed in its version 1."""
    out = []
    for e in events:
        if e.type == "RoundRevealed":
            data: dict[str, Any] = {k: v for k, v in e.data.items() if k != "closed_by"}
            data["closed_by_timer"] = e.data["closed_by"] == "timer"
            e = Event(e.type, data, e.actor, 1)
        out.append(e)
    return out


def test_a_log_of_the_previous_release_folds_and_shows_as_one_of_today() -> None:
    game = GAMES["giraffometer"]
    played = play_bots(game, [game.bot("")] * 3, "upgrade", {"round_timer": None})
    today, before = as_stored(played.events), as_stored(version_1(played.events))
    assert any(s.schema_version == 1 and s.type == "RoundRevealed" for s in before)
    assert fold(game, before) == fold(game, today)
    state = fold(game, today)
    shown_before = redact_stored(game, state, before, SPECTATOR)
    shown_today = redact_stored(game, state, today, SPECTATOR)
    assert [(s.schema_version, s.payload) for s in shown_before] == [
        (s.schema_version, s.payload) for s in shown_today
    ]
    seat_view = redact_stored(game, fold(game, before[:8]), before[:8], 0)
    assert all(s.schema_version == game.events.version(s.type) for s in seat_view)

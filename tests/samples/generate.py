"""Writes a sample of every event type of this version, for tests/unit/test_event_versions.py
(docs/events.md). Run after adding an event type or a version:

    .venv/bin/python -m tests.samples.generate

Existing samples are kept (those of released versions never change); new ones are added
from whole games of bots, with a player who leaves, one gone and back, and time banks."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import orjson

from services.games import GAMES
from services.kernel.errors import RuleViolation
from services.kernel.game import ENGINE, Event, SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.kernel.table import StandIn

HERE = Path(__file__).parent / "events"


def path_of(game: str, event: Event) -> Path:
    return HERE / game / f"{event.type}.v{event.schema_version}.json"


def play(game: str, options: dict[str, Any], seats: int) -> list[Event]:
    spec = GAMES[game]
    p = Playthrough.start(spec, options, [SeatSpec("human")] * seats, f"sample-{game}", 1_000)
    rng, now = SeededRng("samples", "bots"), 1_000
    p.execute(ENGINE, {"type": "seat_gone", "seat": seats - 1, "claim_after_s": 0}, now)
    p.execute(seats - 1, {"type": "return"}, now)
    p.execute(seats - 1, {"type": "leave"}, now)
    for _ in range(5000):
        status = spec.status(p.state)
        if status.over:
            break
        now += 3_000
        if not status.to_act:
            with contextlib.suppress(RuleViolation):
                p.execute(ENGINE, {"type": "flag"}, now)
            continue
        seat = status.to_act[0]
        legal = spec.legal_commands(p.state, seat)
        typed = spec.command(spec.bot("")(spec.view(p.state, seat), legal, rng))
        decided = spec.decide(
            p.state,
            seat,
            StandIn(typed) if legal.get("stand_in") else typed,
            SeededRng(p.seed, p.version),
            now,
        )
        p.state = decided.state
        p.events.extend(decided.events)
    return p.events


# Events no bot game here reaches (a custom deck, a disputed report, the Robot's ties),
# and the released shapes older than the current ones: written as stored.
HANDMADE: list[tuple[str, Event]] = [
    ("giraffe-raffe", Event("RobotCardsDrawn", {"cards": ["R1", "B7"]})),
    (
        "giraffe-raffe",
        Event(
            "RobotTieOffered", {"tree": "single-r", "options": [{"cards": ["R3"], "copies": {}}]}
        ),
    ),
    ("giraffe-raffe", Event("RottenAppleTaken", {"seat": 1})),
    # A vacation, at turn-based tables only (docs/turn-based.md): every game's table.
    *(
        (game, Event("VacationSet", {"seat": 0, "until_ms": 605_000_000}))
        for game in ("giraffe-raffe", "giraffometer", "riff-raff")
    ),
    (
        "giraffometer",
        Event(
            "DeckLoaded",
            {
                "name": "mine",
                "facts": [{"id": "f1", "text": "Height of a giraffe", "unit": "m", "answer": 5.5}],
            },
        ),
    ),
    ("giraffometer", Event("DeckReshuffled", {"order": ["f3", "f1", "f2"]})),
    (
        "giraffometer",
        Event(
            "RoundRevealed",
            {
                "round": 1,
                "answers": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                "lowest_position": 1,
                "highest_position": 6,
                "votes": {"0": {"lowest": 1, "highest": 6, "salt": "s", "commitment": "c"}},
                "changes": [2, 0],
                "scores": [2, 0],
                "closed_by_timer": True,
            },
            ENGINE,
            1,
        ),
    ),
    ("riff-raff", Event("FallReported", {"seat": 0, "fell": [], "caught": []}, 0)),
    ("riff-raff", Event("ReportAccepted", {"seat": 1}, 1)),
    ("riff-raff", Event("ReportDisputed", {"seat": 1}, 1)),
    # A timer running out (the bots' games here never let one run out).
    *((g, Event("TimeRanOut", {"seat": 0, "clock": "turn"})) for g in GAMES),
]


def write(game: str, event: Event) -> int:
    target = path_of(game, event)
    if target.exists():
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    body = {
        "type": event.type,
        "schema_version": event.schema_version,
        "actor": event.actor,
        "data": event.data,
    }
    target.write_bytes(orjson.dumps(body, option=orjson.OPT_INDENT_2))
    return 1


def main() -> None:
    written = sum(write(game, event) for game, event in HANDMADE)
    for name, spec in GAMES.items():
        runs: list[tuple[dict[str, Any], int]] = [({}, spec.players[0])]
        runs += [(dict(v), max(spec.players[0], 1)) for v in spec.variants]
        if spec.expire is not None:
            runs.append(({"bank_timer": 10}, max(spec.players[0], 3)))
        for options, seats in runs:
            with contextlib.suppress(Exception):  # a variant this generator cannot seat
                written += sum(write(name, e) for e in play(name, options, max(seats, 2)))
    print(f"{written} samples written to {HERE}")


if __name__ == "__main__":
    main()

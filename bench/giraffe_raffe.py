"""Giraffe Raffe in-process speed: random-bot playouts (moves/s, bot choice, decide and
evolve included) against replaying the same events (fold only), and the time to list
the legal commands on the worst hand (15 numbered cards and 4 Copies, empty trees).

    python -m bench.giraffe_raffe [--short]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from bench.common import Figure, print_table, write_json
from services.giraffe_raffe.bots import heuristic_bot, random_bot
from services.giraffe_raffe.evolve import evolve
from services.giraffe_raffe.game import GAME
from services.giraffe_raffe.plays import clear_caches
from services.giraffe_raffe.rules import status
from services.giraffe_raffe.state import State
from services.giraffe_raffe.view import legal_commands, view
from services.kernel.game import Event, SeatSpec
from services.kernel.playthrough import Playthrough, created_event
from services.kernel.rng import SeededRng

WORST_HAND = [*[f"{c}{v}" for v in (1, 2, 3, 4) for c in "RBYG"][:15], "C1", "C2", "C3", "C4"]


Moves = list[tuple[int, dict[str, Any]]]


def playouts(games: int) -> tuple[int, float, list[list[Event]], list[Moves]]:
    moves, logs, commands = 0, [], []
    start = time.perf_counter()
    for n in range(games):
        p = Playthrough.start(GAME, {}, [SeatSpec("bot")] * 3, f"bench-{n}")
        rng = SeededRng(p.seed, "bots")
        game: Moves = []
        while not p.state.over:
            seat = status(p.state).to_act[0]
            command = random_bot(view(p.state, seat), legal_commands(p.state, seat), rng)
            p.execute(seat, command)
            game.append((seat, command))
            moves += 1
        logs.append(p.events)
        commands.append(game)
        if n % 50 == 0:
            print(f"\r  playouts: {n}/{games}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return moves, time.perf_counter() - start, logs, commands


def engine_rate(commands: list[Moves]) -> float:
    """Moves/s of the engine alone: the same games' commands through decide and evolve."""
    moves = sum(map(len, commands))
    start = time.perf_counter()
    for n, game in enumerate(commands):
        p = Playthrough.start(GAME, {}, [SeatSpec("bot")] * 3, f"bench-{n}")
        for seat, command in game:
            p.execute(seat, command)
    return moves / (time.perf_counter() - start)


def replay_rate(logs: list[list[Event]]) -> float:
    start = time.perf_counter()
    events = 0
    for log in logs:
        evolve.replay(log, State())
        events += len(log)
    return events / (time.perf_counter() - start)


def worst_hand_state() -> State:
    """15 numbered cards and 4 Copies against empty trees."""
    seats = [SeatSpec("bot")] * 2
    created = created_event(GAME.options({}, seats), seats, "worst")
    dealt = Event(
        "CardsDealt",
        {
            "round": 1,
            "dealer": 0,
            "hands": [WORST_HAND, []],
            "redraw": [],
            "out": [],
            "robot_deck": [],
        },
    )
    return evolve.replay([created, dealt, Event("TurnStarted", {"seat": 0})], State())


def uncached(call: Callable[[], object]) -> object:
    """Measure the work itself, not the enumerators' caches."""
    clear_caches()
    return call()


def per_call_ms(fn: object, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()  # type: ignore[operator]
    return (time.perf_counter() - start) / repeat * 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--short", action="store_true")
    args = parser.parse_args(argv)
    games = 300 if args.short else 2000
    moves, seconds, logs, commands = playouts(games)
    move_rate = moves / seconds
    engine = engine_rate(commands)
    events_per_move = sum(map(len, logs)) / moves
    fold_rate = replay_rate(logs) / events_per_move  # moves' worth of events folded per second
    worst = worst_hand_state()
    legal_ms = per_call_ms(lambda: uncached(lambda: legal_commands(worst, 0)), 50)
    bot_ms = per_call_ms(
        lambda: uncached(
            lambda: heuristic_bot(view(worst, 0), legal_commands(worst, 0), SeededRng("b"))
        ),
        20,
    )
    figures = [
        Figure("replay (fold only), moves' events/s", fold_rate, "moves/s"),
        Figure(
            "engine moves (decide + evolve)", engine, "moves/s", "fold only", engine / fold_rate
        ),
        Figure(
            "random-bot playouts (+view, legal, bot)",
            move_rate,
            "moves/s",
            "engine",
            move_rate / engine,
        ),
        Figure("legal commands, worst hand", legal_ms, "ms"),
        Figure("heuristic bot move, worst hand", bot_ms, "ms", "legal commands", bot_ms / legal_ms),
    ]
    print_table("giraffe raffe (one core)", figures)
    print(f"written to {write_json('giraffe_raffe', figures)}")


if __name__ == "__main__":
    main()

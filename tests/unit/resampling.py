"""What the resampling tests of every game share (#53 item 1): a game some random moves
in, and the count of resampled states whose view for the seat differs from the view they
were sampled from."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.kernel.spec import GameSpec

S = TypeVar("S")
SAMPLES = 100  # per drawn state: 100 drawn states make the 10,000


def played(game: GameSpec[S], options: Mapping[str, Any], players: int, seed: str, moves: int) -> S:
    """A game ``moves`` random moves in (or over sooner), as the game's own random bot
    plays every seat."""
    p = Playthrough.start(game, options, [SeatSpec("human")] * players, seed)
    rng = SeededRng(seed, "moves")
    for _ in range(moves):
        status = game.status(p.state)
        if status.over:
            break
        seat = status.to_act[0]
        bot = game.bots["random"]
        p.execute(seat, bot(game.view(p.state, seat), game.legal_commands(p.state, seat), rng))
    return p.state


def mismatches(
    game: GameSpec[S],
    resample: Callable[[dict[str, Any], SeededRng], S],
    state: S,
    seat: int,
    check: Callable[[S], None] = lambda sampled: None,
) -> int:
    """Of SAMPLES states resampled from ``seat``'s view, how many show it another view;
    ``check`` looks at each sampled state too."""
    seen = game.view(state, seat)
    wrong = 0
    for n in range(SAMPLES):
        sampled = resample(seen, SeededRng(f"sample:{seat}", n))
        wrong += game.view(sampled, seat) != seen
        check(sampled)
    return wrong

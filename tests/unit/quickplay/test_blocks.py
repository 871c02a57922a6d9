"""Blocks keep players apart in quick play (#54 item 4, docs/social.md): the issue's
property, 0 blocked pairs seated together over 10,000 simulated matches with random
blocks, and nobody waits longer than the bots' setting because of a block."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.quickplay.matching import Waiting, tables

BOTS_AFTER_MS = 30_000


def simulated(rng: random.Random) -> tuple[list[Waiting], set[frozenset[str]], int, int]:
    """A queue of up to 40 players (ratings and waits at random), random blocks among
    them, a table size and the time now."""
    players = [f"p{i}" for i in range(rng.randint(1, 40))]
    waiting = [Waiting(p, rng.randint(0, 40_000), rng.uniform(-20, 20)) for p in players]
    pairs = (
        [frozenset(rng.sample(players, 2)) for _ in range(rng.randint(0, 60))]
        if len(players) > 1
        else []
    )
    return waiting, set(pairs), rng.randint(2, 5), 40_000


def test_no_blocked_pair_sits_together_in_10000_matches() -> None:
    rng = random.Random(54)
    matches = together = 0
    while matches < 10_000:
        waiting, apart, size, now = simulated(rng)
        for table in tables(waiting, size, now, BOTS_AFTER_MS, apart):
            seated = [p for p in table if p]
            matches += 1
            together += sum(
                frozenset((a, b)) in apart for i, a in enumerate(seated) for b in seated[i + 1 :]
            )
    assert matches >= 10_000 and together == 0


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_block_never_holds_anyone_past_the_bots(seed: int) -> None:
    """Everyone who waited the bots' setting is seated (with bots where a blocked player
    would have sat), and nobody is at two tables."""
    waiting, apart, size, now = simulated(random.Random(seed))
    formed = tables(waiting, size, now, BOTS_AFTER_MS, apart)
    seated = [p for t in formed for p in t if p]
    assert len(seated) == len(set(seated))
    due = {w.player for w in waiting if now - w.joined_ms >= BOTS_AFTER_MS}
    assert due <= set(seated)

"""Which tables to form from a queue, now: pure.

The player who has waited longest is seated first, with the players nearest their
rating (the board score) inside a window that widens the longer they wait: a table
forms as soon as enough players are that near. Once the oldest has waited
``bots_after_ms``, their table forms with whoever is near and bots in the empty seats,
so nobody waits longer than that. A player no table can take yet is passed over (the
next oldest may still form a table of their own)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

BASE_WINDOW = 5.0  # score points either side at once (a new player's score is ~0)
WIDEN_PER_S = 1.0  # and this much more per second waited


@dataclass(frozen=True)
class Waiting:
    player: str
    joined_ms: int
    score: float


def window(waited_ms: int) -> float:
    return BASE_WINDOW + WIDEN_PER_S * waited_ms / 1000


def tables(
    waiting: Sequence[Waiting],
    size: int,
    now_ms: int,
    bots_after_ms: int,
    apart: Collection[frozenset[str]] = frozenset(),
    programs: Collection[str] = frozenset(),
) -> list[list[str | None]]:
    """Tables to form: each ``size`` seats of players, None where a bot sits; every
    table has at least one player, no player is at two, and no pair in ``apart`` (one
    blocks the other, docs/social.md; a bot account and a person who does not welcome
    bots, docs/bot-api.md) is at one. House bots fill a table only for a person: a table
    of ``programs`` (bot accounts) alone waits for more of them."""
    pool = sorted(waiting, key=lambda w: (w.joined_ms, w.player))
    out: list[list[str | None]] = []
    while pool:
        oldest, rest = pool[0], pool[1:]
        waited = now_ms - oldest.joined_ms
        near = sorted(
            (w for w in rest if abs(w.score - oldest.score) <= window(waited)),
            key=lambda w: (abs(w.score - oldest.score), w.joined_ms, w.player),
        )
        table = [oldest]
        for w in near:  # the nearest first, none kept apart from anyone seated so far
            if len(table) < size and not any(
                frozenset((w.player, t.player)) in apart for t in table
            ):
                table.append(w)
        people = any(w.player not in programs for w in table)
        if len(table) < size and (waited < bots_after_ms or not people):
            # nobody near enough yet, and bots not yet due: the next oldest's turn
            pool = rest
            continue
        seated = {w.player for w in table}
        out.append([w.player for w in table] + [None] * (size - len(table)))
        pool = [w for w in rest if w.player not in seated]
    return out


def estimated_wait_ms(waited_ms: int, bots_after_ms: int) -> int:
    """At most until bots fill the table: sooner if enough players near come."""
    return max(0, bots_after_ms - waited_ms)


def bot_level(scores: Sequence[float], levels: dict[str, float | None], default: str) -> str:
    """The bot level to fill a table with: the one whose rating (its board score, None
    while unrated) is nearest the table's players' mean; the default while none is
    rated."""
    rated = {level: score for level, score in levels.items() if score is not None}
    if not rated or not scores:
        return default
    target = sum(scores) / len(scores)
    return min(sorted(rated), key=lambda level: abs(rated[level] - target))

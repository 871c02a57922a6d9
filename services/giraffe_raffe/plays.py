"""Checking a play against a tree, and enumerating the plays a hand allows.

Copies are interchangeable: enumerators use the lowest-numbered Copies of the hand and
let each Copy duplicate the first numbered card of the play. A command may name any
Copy it holds and any numbered card of the play for it (GR-6).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product

from services.giraffe_raffe.cards import FACE, KNOWN, is_copy, sort_key
from services.giraffe_raffe.trees import VALUE_KINDS, Need, shape_error
from services.kernel.errors import InvalidArgument, RuleViolation

MESSAGES = {
    "copy_needs_numbered": "a play with Copy cards must hold at least one numbered card",
    "wrong_card_count": "this tree needs a different number of cards",
    "values_differ": "the cards of this tree must all have the same value",
    "wrong_colour": "this Single tree does not show that colour",
    "value_not_higher": "the value must be strictly higher than the top play on this tree",
    "straight_needs_distinct_values": "a Straight needs distinct values (a Copy breaks the run)",
    "straight_not_consecutive": "a Straight needs consecutive values",
    "colours_differ": "the cards of a Color play must all have one colour",
}


def parse_play(
    hand: Sequence[str], raw_cards: Sequence[str], raw_copies: Mapping[str, str] | None
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The cards and resolved Copies of a play command, or a typed error."""
    for card in raw_cards:
        if card not in KNOWN:
            raise InvalidArgument(
                f"unknown card {card!r}; cards are like R7, G15, C1", "unknown_card"
            )
    if len(set(raw_cards)) != len(raw_cards):
        raise InvalidArgument("a card may appear only once in a play", "duplicate_card")
    missing = [c for c in raw_cards if c not in hand]
    if missing:
        raise RuleViolation(f"not in your hand: {', '.join(missing)}", "card_not_in_hand")
    return tuple(raw_cards), resolve_copies(raw_cards, raw_copies)


def resolve_copies(
    cards: Sequence[str], raw: Mapping[str, str] | None
) -> tuple[tuple[str, str], ...]:
    raw = raw or {}
    copies = [c for c in cards if is_copy(c)]
    numbered = [c for c in cards if not is_copy(c)]
    for copy, target in raw.items():
        if copy not in copies:
            raise InvalidArgument(f"{copy!r} is not a Copy card of this play", "copy_not_in_play")
        if target not in numbered:
            raise InvalidArgument(
                f"{copy} must copy a numbered card of the same play, not {target!r}",
                "copy_target_not_in_play",
            )
    if copies and not numbered:
        raise RuleViolation(MESSAGES["copy_needs_numbered"], "copy_needs_numbered")
    return tuple((c, str(raw.get(c, numbered[0]))) for c in copies)


def check(n: Need, cards: Sequence[str]) -> None:
    numbered = [c for c in cards if not is_copy(c)]
    error = shape_error(n, numbered, len(cards) - len(numbered))
    if error is not None:
        raise RuleViolation(f"{MESSAGES[error]} ({n.kind})", error)


# -- enumeration -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandIndex:
    """A hand sorted and grouped once; every check of every tree reuses it."""

    numbered: tuple[str, ...]
    copies: tuple[str, ...]
    values: dict[int, list[str]]
    colours: dict[str, list[str]]


# Cache sizes: enough for the hands of the games a process has in play (each game asks
# about a few hands and trees at a time, many times a move); a larger cache mostly holds
# finished games' hands (at 65,536 entries these took ~50 MiB in every process).
@lru_cache(maxsize=2048)
def index(hand: tuple[str, ...]) -> HandIndex:
    numbered = tuple(sorted((c for c in hand if c in FACE), key=sort_key))
    copies = tuple(sorted(c for c in hand if c not in FACE))
    return HandIndex(numbered, copies, by_value(numbered), by_colour(numbered))


def _with_copies(numbered: Sequence[str], copies: Sequence[str], k: int) -> tuple[str, ...]:
    return (*numbered, *copies[:k])


def by_value(cards: Sequence[str]) -> dict[int, list[str]]:
    """Cards grouped by value, in the order given."""
    groups: dict[int, list[str]] = defaultdict(list)
    for c in cards:
        groups[FACE[c][1]].append(c)
    return groups


def plays(n: Need, hand: Sequence[str]) -> Iterator[tuple[str, ...]]:
    """Every play (as card tuples) the hand allows on a tree needing ``n``."""
    i = index(tuple(hand))
    numbered, copies = i.numbered, i.copies
    if n.kind in VALUE_KINDS:
        yield from _value_plays(n, i.values, copies)
    elif n.kind == "straight":
        yield from _straights(n, numbered)
    else:
        yield from _subset_plays(n, numbered, copies)


def _value_plays(
    n: Need, values: Mapping[int, list[str]], copies: Sequence[str]
) -> Iterator[tuple[str, ...]]:
    k = n.min_cards
    for v, cards in values.items():  # ascending: the index groups a sorted hand
        if v <= n.above:
            continue
        if n.kind == "single":
            yield from ((c,) for c in cards if FACE[c][0] in n.colours)
            continue
        for m in range(max(1, k - len(copies)), min(k, len(cards)) + 1):
            for chosen in combinations(cards, m):
                yield _with_copies(chosen, copies, k - m)


def _runs(n: Need, numbered: Sequence[str]) -> Iterator[list[list[str]]]:
    """Runs of consecutive values (as per-value card lists) of an allowed length."""
    groups = by_value(numbered)
    top = n.max_cards or len(groups)
    for start in sorted(groups):
        run: list[list[str]] = []
        v = start
        while v in groups and len(run) < top:
            run.append(groups[v])
            v += 1
            if len(run) >= n.min_cards:
                yield list(run)


def _straights(n: Need, numbered: Sequence[str]) -> Iterator[tuple[str, ...]]:
    for run in _runs(n, numbered):
        yield from product(*run)


def _subset_plays(
    n: Need, numbered: Sequence[str], copies: Sequence[str]
) -> Iterator[tuple[str, ...]]:
    pools = [numbered] if n.kind == "free" else list(by_colour(numbered).values())
    for pool in pools:
        for size in range(n.min_cards, (n.max_cards or len(pool) + len(copies)) + 1):
            for c in range(0, min(len(copies), size - 1) + 1):
                m = size - c
                if m > len(pool):
                    continue
                for chosen in combinations(pool, m):
                    yield _with_copies(chosen, copies, c)


def by_colour(cards: Sequence[str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for c in cards:
        groups[FACE[c][0]].append(c)
    return groups


@lru_cache(maxsize=4096)
def value_options(n: Need, hand: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """Every play on a Single/Pair/Three/Four tree (few: listed in legal commands)."""
    return tuple(plays(n, hand))


@lru_cache(maxsize=8192)
def can_play(n: Need, hand: tuple[str, ...]) -> bool:
    """Whether any play exists, without enumerating them (fast, cached: asked for every
    tree on every turn)."""
    i = index(hand)
    if not i.numbered:
        return False
    copies = len(i.copies)
    if n.kind == "single":
        return any(FACE[c][1] > n.above and FACE[c][0] in n.colours for c in i.numbered)
    if n.kind in VALUE_KINDS:
        return any(v > n.above and len(cs) + copies >= n.min_cards for v, cs in i.values.items())
    if n.kind == "straight":
        return _longest_run(i.values) >= n.min_cards
    if n.kind == "free":
        return len(i.numbered) + copies >= n.min_cards
    return any(len(cs) + copies >= n.min_cards for cs in i.colours.values())


def _longest_run(values: Mapping[int, list[str]]) -> int:
    longest = run = 0
    for v in range(1, 16):
        run = run + 1 if v in values else 0
        longest = max(longest, run)
    return longest


def clear_caches() -> None:
    """Forget cached enumerations (benchmarks measure the work itself)."""
    for cached in (index, value_options, can_play):
        cached.cache_clear()

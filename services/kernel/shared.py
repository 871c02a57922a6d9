"""What folded states share across games: one object per process for values that are the
same in every game (a card's name, a seat's kind, a game's options as most games choose
them), instead of the fresh copies each event's parsed JSON brings.

A state lives as long as someone watches or plays its game (the gateway's live hub
keeps one per watched table, for hours at turn-based pace). Folded from JSON, a Giraffe
Raffe table was ~8 KiB at its deal, over half of it strings and dicts equal to every
other table's; shared, ~2.2 KiB. Sharing is safe because states never change in place
(services.kernel.frozen): a shared value is read, never written.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any

NO_SEATS: frozenset[int] = frozenset()  # frozenset() is a new object each call
OPTIONS_KEPT = 512  # distinct option sets remembered (most games choose among a few)
_options: dict[tuple[tuple[str, type, Any], ...], dict[str, Any]] = {}


def names(strings: Iterable[str]) -> tuple[str, ...]:
    """The strings as one tuple, each the process's one copy of its text (cards, kinds)."""
    return tuple(map(sys.intern, strings))


def seats(items: Iterable[int]) -> frozenset[int]:
    """A frozenset of seats; the empty one shared."""
    out = frozenset(items)
    return out if out else NO_SEATS


def options(chosen: Mapping[str, Any]) -> dict[str, Any]:
    """A game's options as a dict equal to ``chosen``, shared with every game that chose
    the same (only flat options of strings, numbers and booleans are shared; the rest
    are copied). Callers never change it."""
    copy = dict(chosen)
    try:
        # With each value's type: 1, 1.0 and True are equal keys, and would otherwise
        # hand a game that chose true another game's 1 (its views would say 1).
        key = tuple((k, type(v), v) for k, v in sorted(copy.items()))
        hash(key)
    except TypeError:  # a list or dict among the values: not shared
        return copy
    known = _options.get(key)
    if known is not None:
        return known
    if len(_options) >= OPTIONS_KEPT:  # many distinct sets: start over, never grow
        _options.clear()
    _options[key] = copy
    return copy

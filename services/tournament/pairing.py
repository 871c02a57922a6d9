"""Who sits at which table, for every format. Pure: the tournament's decide calls these
with its state and a seeded generator, and records the tables it gets in RoundStarted.

- round robin (two-player tables): the circle method, everyone meets everyone once,
  a bye each round when the number of players is odd;
- Swiss pods (and duplicate, which pairs the same way): players in standings order fill
  tables of ``size``; a bounded depth-first search finds the pods closest to standings
  order with no rematch at all, and when there are none (or the search runs out) each
  table greedily takes the next player new to everyone at it; the ``n % size``
  lowest-ranked players who have had the fewest byes sit out with a bye;
- elimination: tables seeded snake-wise by standings (best with worst), the top
  ``advance`` of each table go on; byes go to the best seeds and advance;
- ladder (bots): a table per rotation of the entrants, all on the round's one deal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations

Table = list[int]


def round_robin(players: Sequence[int], round_index: int) -> tuple[list[Table], list[int]]:
    """Round ``round_index`` (0-based) of the circle method over ``players``."""
    ring: list[int | None] = list(players)
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    turn = round_index % max(1, n - 1)
    rotated = [ring[0], *(ring[1:][-turn:] + ring[1:][:-turn] if turn else ring[1:])]
    tables: list[Table] = []
    byes: list[int] = []
    for i in range(n // 2):
        a, b = rotated[i], rotated[n - 1 - i]
        if a is None or b is None:
            byes.extend(p for p in (a, b) if p is not None)
        else:
            tables.append([a, b] if (round_index + i) % 2 == 0 else [b, a])
    return tables, byes


def rotations(players: Sequence[int]) -> list[Table]:
    """A bot ladder's round (docs/bots.md): a table per seat rotation, so that on the
    round's one deal every entrant plays every seat once."""
    k = len(players)
    return [[players[(seat + shift) % k] for seat in range(k)] for shift in range(k)]


def round_robin_rounds(players: int) -> int:
    return players - 1 if players % 2 == 0 else players


def pods(
    ranked: Sequence[int],
    size: int,
    met: Callable[[int, int], bool],
    bye_counts: Mapping[int, int],
) -> tuple[list[Table], list[int]]:
    """Swiss pods: ``ranked`` is best first; see the module's doc."""
    extra = len(ranked) % size
    byes = _byes(ranked, extra, bye_counts)
    left = [p for p in ranked if p not in byes]
    budget = [SEARCH_BUDGET]
    found = _fresh_pods(left, size, met, budget)
    return (found if found is not None else _greedy_pods(left, size, met)), byes


SEARCH_BUDGET = 20_000  # tables tried before settling for the greedy pods


def _fresh_pods(
    left: list[int], size: int, met: Callable[[int, int], bool], budget: list[int]
) -> list[Table] | None:
    """Pods with no rematch at all, closest to standings order (depth-first, bounded)."""
    if not left:
        return []
    head, rest = left[0], left[1:]
    for others in combinations(rest, size - 1):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        table = [head, *others]
        if any(met(a, b) for a, b in combinations(table, 2)):
            continue
        remaining = [p for p in rest if p not in others]
        below = _fresh_pods(remaining, size, met, budget)
        if below is not None:
            return [table, *below]
        if budget[0] < 0:
            return None
    return None


def _greedy_pods(left: list[int], size: int, met: Callable[[int, int], bool]) -> list[Table]:
    """Each table takes the next player new to everyone at it, else the next in line."""
    left = list(left)
    tables: list[Table] = []
    while left:
        table = [left.pop(0)]
        while len(table) < size:
            fresh = next((p for p in left if not any(met(p, q) for q in table)), left[0])
            left.remove(fresh)
            table.append(fresh)
        tables.append(table)
    return tables


def _byes(ranked: Sequence[int], count: int, bye_counts: Mapping[int, int]) -> list[int]:
    """The lowest-ranked players among those with the fewest byes so far."""
    if count <= 0:
        return []
    order = sorted(
        range(len(ranked)), key=lambda i: (bye_counts.get(ranked[i], 0), -i)
    )  # fewest byes first, then the lowest ranked
    return sorted((ranked[i] for i in order[:count]), key=list(ranked).index)


def elimination(ranked: Sequence[int], size: int) -> tuple[list[Table], list[int]]:
    """Snake seeding into ``len // size`` tables; the best ``len % size`` get byes."""
    extra = len(ranked) % size
    byes, seeded = list(ranked[:extra]), list(ranked[extra:])
    count = len(seeded) // size
    tables: list[Table] = [[] for _ in range(count)]
    for i, p in enumerate(seeded):
        lap, pos = divmod(i, count)
        tables[pos if lap % 2 == 0 else count - 1 - pos].append(p)
    return tables, byes

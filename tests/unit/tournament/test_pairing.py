"""Pairings: everyone seated once a round, byes fair, round robin complete, Swiss pods
without rematches while fresh opponents remain."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from services.tournament import pairing


@given(st.integers(min_value=2, max_value=21))
def test_round_robin_has_everyone_meet_everyone_exactly_once(n: int) -> None:
    met: Counter[frozenset[int]] = Counter()
    for r in range(pairing.round_robin_rounds(n)):
        tables, byes = pairing.round_robin(range(n), r)
        seated = [p for t in tables for p in t] + byes
        assert sorted(seated) == list(range(n))
        assert len(byes) == n % 2 and all(len(t) == 2 for t in tables)
        met.update(frozenset(t) for t in tables)
    assert set(met) == {frozenset(pair) for pair in combinations(range(n), 2)}
    assert set(met.values()) == {1}


@given(
    st.integers(min_value=2, max_value=40),
    st.integers(min_value=2, max_value=5),
    st.lists(st.integers(min_value=0, max_value=3), min_size=40, max_size=40),
    st.sets(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=60),
)
def test_pods_seat_everyone_once_and_give_byes_to_the_fewest_byes(
    n: int, size: int, bye_counts: list[int], met_pairs: set[tuple[int, int]]
) -> None:
    if n < size:  # the tournament refuses to start with fewer players than a table
        return
    ranked = list(range(n))
    met = {frozenset(p) for p in met_pairs}
    counts = dict(enumerate(bye_counts[:n]))
    tables, byes = pairing.pods(ranked, size, lambda a, b: frozenset((a, b)) in met, counts)
    assert sorted([p for t in tables for p in t] + byes) == ranked
    assert all(len(t) == size for t in tables) and len(byes) == n % size
    assert all(counts[b] <= counts[p] for b in byes for p in ranked if p not in byes)


def test_swiss_pods_avoid_rematches_while_fresh_opponents_remain() -> None:
    n, size = 12, 3
    seen: set[frozenset[int]] = set()

    def met(a: int, b: int) -> bool:
        return frozenset((a, b)) in seen

    for _ in range(3):  # 12 players, 3 per table: 3 rounds without a rematch are possible
        tables, _ = pairing.pods(list(range(n)), size, met, {})
        pairs = {frozenset((a, b)) for t in tables for a in t for b in t if a != b}
        assert not pairs & seen
        seen |= pairs


@given(st.integers(min_value=2, max_value=40), st.integers(min_value=2, max_value=5))
def test_elimination_gives_byes_to_the_best_seeds_and_snakes_the_rest(n: int, size: int) -> None:
    if n < size:
        return
    tables, byes = pairing.elimination(list(range(n)), size)
    assert byes == list(range(n % size))
    assert sorted([p for t in tables for p in t] + byes) == list(range(n))
    assert all(len(t) == size for t in tables)
    firsts = sorted(t[0] for t in tables)  # the top seeds head different tables
    assert firsts == list(range(n % size, n % size + len(tables)))

"""Caches of game states are bounded by bytes, and finished games leave the projection's
(#16 item 8): the projection kept 20,000 games by count, ~62 KB each."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.core.lru import BytesLRU
from services.giraffe_raffe import view as gr_view
from services.giraffe_raffe.trees import Play, Tree
from services.giraffometer import decks
from services.giraffometer.game import GAME as GIRAFFOMETER
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 400)), max_size=200))
def test_the_lru_never_holds_more_than_its_bytes_but_its_newest_entry(
    puts: list[tuple[int, int]],
) -> None:
    lru: BytesLRU[int, int] = BytesLRU(1000)
    for key, size in puts:
        lru.put(key, key, size)
        assert lru.bytes <= 1000 or len(lru) == 1
        assert lru.get(key) == key  # the entry just put is always there
        assert lru.bytes == sum(lru.size_of(k) for k in range(21) if k in lru)


def test_giraffometer_games_share_one_fact_table() -> None:
    seats = [SeatSpec("bot")] * 2
    a = Playthrough.start(GIRAFFOMETER, {}, seats, "a").state
    b = Playthrough.start(GIRAFFOMETER, {}, seats, "b").state
    assert a.facts is b.facts is decks.facts_for(None)


def test_a_trees_json_is_drawn_once_per_tree_and_the_cache_stays_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Views share each unchanged tree's JSON by the tree's identity (no hashing of its
    plays); a played-on tree is a new object with JSON of its own, and the cache is
    emptied, not grown, past its bound."""
    tree = Tree("pair", "pair")
    first = gr_view._tree_json(tree, "more")
    assert gr_view._tree_json(tree, "more") is first
    played = Tree("pair", "pair", (), (Play(0, ("R3", "B3")),))
    assert gr_view._tree_json(played, "more")["plays"] == [
        {"seat": 0, "cards": ["R3", "B3"], "copies": {}}
    ]
    twin = Tree("pair", "pair")  # equal, not the same object: equal JSON all the same
    assert gr_view._tree_json(twin, "more") == first
    assert gr_view._tree_json(tree, "exactly_one_more") == first  # a value tree's need
    monkeypatch.setattr(gr_view, "TREE_JSON_ENTRIES", 8)
    gr_view._TREE_JSON.clear()
    trees = [Tree(f"t{i}", "free") for i in range(50)]
    for t in trees:
        gr_view._tree_json(t, "more")
        assert len(gr_view._TREE_JSON) <= 8
    assert gr_view._tree_json(trees[-1], "more")["id"] == "t49"

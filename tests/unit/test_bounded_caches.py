"""Caches of game states are bounded by bytes, and finished games leave the projection's
(#16 item 8): the projection kept 20,000 games by count, ~62 KB each."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from services.core.lru import BytesLRU
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
